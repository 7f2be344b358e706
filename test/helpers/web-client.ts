/**
 * A browser-like client of a real server over HTTP: keeps its cookies, reads each page's CSRF
 * token and sends it with the next form, follows no redirect (the test reads them).
 */
export interface WebClient {
  cookies: Map<string, string>;
  get(path: string): Promise<{ status: number; location: string | null; body: string }>;
  /** Posts a urlencoded form with the last page's CSRF token (GET the form first). */
  post(
    path: string,
    form: Record<string, string>,
  ): Promise<{ status: number; location: string | null; body: string }>;
}

export function webClient(origin: string): WebClient {
  const cookies = new Map<string, string>();
  let token = "";
  const send = async (path: string, init: RequestInit) => {
    const response = await fetch(new URL(path, origin), {
      ...init,
      redirect: "manual",
      headers: {
        ...(init.headers as Record<string, string>),
        cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join("; "),
      },
    });
    for (const line of response.headers.getSetCookie()) {
      const [pair = ""] = line.split(";");
      const at = pair.indexOf("=");
      const [name, value] = [pair.slice(0, at), pair.slice(at + 1)];
      if (/max-age=0|expires=thu, 01 jan 1970/i.test(line)) cookies.delete(name);
      else cookies.set(name, value);
    }
    const body = await response.text();
    token = /name="_csrf" value="([^"]+)"/.exec(body)?.[1] ?? token;
    return { status: response.status, location: response.headers.get("location"), body };
  };
  return {
    cookies,
    get: (path) => send(path, { method: "GET" }),
    post: (path, form) =>
      send(path, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ _csrf: token, ...form }).toString(),
      }),
  };
}
