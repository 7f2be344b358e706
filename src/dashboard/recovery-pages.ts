import type { FastifyInstance } from "fastify";
import { RESET_LINK_MINUTES } from "../businesses/password-resets.js";
import { type DashboardDependencies, type Form, linkToken, page } from "./kit.js";
import { refusal, type Surface, signInThrottle } from "./sign-in.js";

// "Forgot password" on both surfaces (issue 28, item 4): ask for a link by email (the same answer
// for an address with no account), then choose a new password from the mailed link, which works
// once for 30 minutes and signs the user out everywhere. The link's token travels in the query
// string and the form's body, never in a path: nothing logs it.

export function recoveryPages(pages: FastifyInstance, deps: DashboardDependencies, surface: Surface): void {
  const throttle = signInThrottle(pages, deps);
  const forgotView = { surface, title: "Reset your password", minutes: RESET_LINK_MINUTES };
  const forgotThrottle = signInThrottle(pages, deps, (request) => ({
    view: "forgot",
    data: { ...forgotView, email: (request.body as Form | undefined)?.email ?? "" },
  }));

  pages.get("/forgot", async (_request, reply) => page(reply, "forgot", { ...forgotView, email: "" }));

  pages.post("/forgot", { preHandler: forgotThrottle }, async (request, reply) => {
    const email = ((request.body as Form).email ?? "").trim();
    try {
      // Answers before the address is looked up: the link, if any, is made after the redirect.
      await deps.passwordResets.request(surface.role, email, surface.base, request.log);
    } catch (error) {
      return refusal(reply, error, "forgot", { ...forgotView, email });
    }
    return reply.redirect(`${surface.base}/forgot?sent=1`, 303);
  });

  pages.get("/reset", async (request, reply) => {
    const token = linkToken(request.query);
    const live = token !== "" && (await deps.passwordResets.isLive(token));
    return page(
      reply,
      "reset-password",
      { surface, title: "Choose a new password", token, live },
      live ? 200 : 410,
    );
  });

  pages.post("/reset", { preHandler: throttle }, async (request, reply) => {
    const form = request.body as Form;
    const token = form.token ?? "";
    if (form.password !== form.confirm) {
      return page(
        reply,
        "reset-password",
        {
          surface,
          title: "Choose a new password",
          token,
          live: true,
          error: "The two passwords are not the same",
        },
        400,
      );
    }
    try {
      await deps.passwordResets.reset(token, form.password ?? "");
    } catch (error) {
      const live = await deps.passwordResets.isLive(token);
      return refusal(reply, error, "reset-password", {
        surface,
        title: "Choose a new password",
        token,
        live,
      });
    }
    return reply.redirect(`${surface.base}/login?reset=1`, 303);
  });
}
