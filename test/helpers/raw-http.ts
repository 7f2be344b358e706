import net from "node:net";

export interface RawResponse {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * One HTTP/1.1 request written byte for byte (header values as latin1, so that any byte an
 * attacker can put on the wire can be sent), on its own connection; the answer is read until
 * the server closes it.
 */
export function rawRequest(
  port: number,
  method: string,
  target: string,
  headers: ReadonlyArray<readonly [string, string]>,
  body = "",
): Promise<RawResponse> {
  const lines = [`${method} ${target} HTTP/1.1`, "Host: 127.0.0.1", "Connection: close"];
  for (const [name, value] of headers) lines.push(`${name}: ${value}`);
  if (body !== "") lines.push(`Content-Length: ${Buffer.byteLength(body)}`);
  const head = Buffer.from(`${lines.join("\r\n")}\r\n\r\n`, "latin1");
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1");
    const chunks: Buffer[] = [];
    socket.on("data", (chunk) => chunks.push(chunk));
    socket.on("error", reject);
    socket.on("close", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      const split = text.indexOf("\r\n\r\n");
      const [status = "", ...fields] = text.slice(0, split).split("\r\n");
      const parsed: Record<string, string> = {};
      for (const field of fields) {
        const colon = field.indexOf(":");
        parsed[field.slice(0, colon).toLowerCase()] = field.slice(colon + 1).trim();
      }
      resolve({ statusCode: Number(status.split(" ")[1]), headers: parsed, body: text.slice(split + 4) });
    });
    socket.on("connect", () => socket.write(Buffer.concat([head, Buffer.from(body, "utf8")])));
  });
}
