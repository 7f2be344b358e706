import type { AddressInfo } from "node:net";
import { type ParsedMail, simpleParser } from "mailparser";
import { SMTPServer } from "smtp-server";

/** A real SMTP server on `port` (0: any) that keeps what it takes, refusing senders or answering late when told. */
export async function smtpServer(port = 0, options: { refuse?: boolean; greetAfterMs?: number } = {}) {
  const received: ParsedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS", "AUTH"],
    logger: false,
    onConnect(_session, callback) {
      setTimeout(() => callback(), options.greetAfterMs ?? 0);
    },
    onMailFrom(_address, _session, callback) {
      if (options.refuse) {
        const refused = Object.assign(new Error("Try again later: mailbox service paused"), {
          responseCode: 451,
        });
        return callback(refused);
      }
      callback();
    },
    onData(stream, _session, callback) {
      simpleParser(stream)
        .then((mail) => {
          received.push(mail);
          callback();
        })
        .catch(callback);
    },
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  return {
    port: (server.server.address() as AddressInfo).port,
    url: `smtp://127.0.0.1:${(server.server.address() as AddressInfo).port}`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
