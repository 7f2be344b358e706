import assert from "node:assert/strict";
import type { FastifyInstance } from "fastify";
import { lastMail, linkIn, pathOf } from "./mail-files.js";

/** A browser-like client of an app in this process: keeps cookies, reads each page's CSRF token. */
export function pageClient(app: FastifyInstance) {
  const cookies = new Map<string, string>();
  const keep = (setCookie: string | string[] | undefined) => {
    for (const line of [setCookie ?? []].flat()) {
      const [pair] = line.split(";");
      const [name, value] = (pair ?? "").split("=");
      if (name) cookies.set(name, value ?? "");
    }
  };
  const cookie = () => [...cookies].map(([name, value]) => `${name}=${value}`).join("; ");
  const client = {
    async get(url: string) {
      const response = await app.inject({ method: "GET", url, headers: { cookie: cookie() } });
      keep(response.headers["set-cookie"]);
      const token = /name="_csrf" value="([^"]+)"/.exec(response.body)?.[1];
      return { response, token };
    },
    async post(url: string, form: Record<string, string>, contentType = "application/x-www-form-urlencoded") {
      const response = await app.inject({
        method: "POST",
        url,
        headers: { cookie: cookie(), "content-type": contentType },
        payload: new URLSearchParams(form).toString(),
      });
      keep(response.headers["set-cookie"]);
      return response;
    },
    /** Signs in at `base` (/dashboard or /admin) with the form, as a person would: the form's answer. */
    async signIn(base: string, email: string, password: string) {
      const { token } = await client.get(`${base}/login`);
      return client.post(`${base}/login`, { _csrf: token ?? "", email, password });
    },
    /**
     * Signs a business up as a person does: the form, the mailed link's page, its button. Ends
     * signed in as the owner; answers the confirmation's response.
     */
    async signUp(
      mail: { dir: string; mailer: { idle(): Promise<void> } },
      input: { businessName: string; email: string; password: string },
    ) {
      const form = await client.get("/dashboard/signup");
      const sent = await client.post("/dashboard/signup", { _csrf: form.token ?? "", ...input });
      assert.equal(sent.statusCode, 303, sent.body);
      const link = linkIn(
        await lastMail(mail, input.email, "Confirm your email to create your account"),
        "http",
      );
      const opened = await client.get(pathOf(link));
      const token = new URL(link).searchParams.get("token") ?? "";
      return client.post("/dashboard/confirm", { _csrf: opened.token ?? "", token });
    },
  };
  return client;
}
