import { once } from "node:events";
import http from "node:http";
import type { AddressInfo } from "node:net";

/** One request a receiver got. */
export interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A webhook receiver on a real port, answering each request as `answer` says (default 200). */
export interface Receiver {
  url: string;
  received: Received[];
  /** What to answer to the next request (status, headers, body: "ok" unless given), or "hang" to never answer. */
  answer: (request: number) => { status: number; headers?: Record<string, string>; body?: string } | "hang";
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const received: Received[] = [];
  const hanging = new Set<http.ServerResponse>();
  const receiver: Receiver = {
    url: "",
    received,
    answer: () => ({ status: 200 }),
    async close() {
      for (const response of hanging) response.destroy();
      server.closeAllConnections();
      server.close();
      await once(server, "close");
    },
  };
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      received.push({ headers: request.headers, body: Buffer.concat(chunks).toString("utf8") });
      const answer = receiver.answer(received.length);
      if (answer === "hang") {
        hanging.add(response);
        return;
      }
      response.writeHead(answer.status, answer.headers).end(answer.body ?? "ok");
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  return receiver;
}
