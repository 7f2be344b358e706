import type { FastifyInstance, FastifyReply } from "fastify";
import QRCode from "qrcode";
import { activityLines } from "./activity.js";
import { type DashboardDependencies, doneNotice, doneRedirect, type Form, page } from "./kit.js";
import { guard, refusal, type Surface, signedIn } from "./sign-in.js";

/**
 * A signed-in person's own sign-in settings, on both surfaces: the password (changing it ends
 * every other session), two-factor sign-in (an authenticator app's codes), and the recent
 * activity (the business's for its users, their own for operators) to spot what they did not do.
 */
export function securityPages(pages: FastifyInstance, deps: DashboardDependencies, surface: Surface): void {
  const signedInOnly = { preHandler: guard(surface) };
  const base = `${surface.base}/security`;

  pages.get("/security", signedInOnly, async (request, reply) => {
    const session = signedIn(request);
    const recoveryCodes = await deps.reveals.take<string[]>(session.id, "recovery_codes");
    const { setup } = request.query as { setup?: string };
    return render(reply, session.userId, {
      recoveryCodes,
      done: doneNotice(request.query, NOTICES),
      setupNeeded: SETUP_REASONS[setup ?? ""],
    });
  });

  pages.post("/security/password", signedInOnly, async (request, reply) => {
    const session = signedIn(request);
    const form = request.body as Form;
    try {
      if ((form.next ?? "") !== (form.confirm ?? "")) {
        return render(reply, session.userId, { passwordError: "The new passwords do not match" }, 400);
      }
      await deps.users.changePassword(session.userId, form.current ?? "", form.next ?? "", session.id);
    } catch (error) {
      return refusal(reply, error, "security", {
        ...(await data(session.userId)),
        passwordError: (error as Error).message,
      });
    }
    return doneRedirect(reply, base, "password");
  });

  pages.post("/security/totp/start", signedInOnly, async (request, reply) => {
    const session = signedIn(request);
    await deps.secondFactor.beginTotp(session.userId);
    return reply.redirect(base, 303);
  });

  pages.post("/security/totp/confirm", signedInOnly, async (request, reply) => {
    const session = signedIn(request);
    let recoveryCodes: string[];
    try {
      const form = request.body as Form;
      recoveryCodes = await deps.secondFactor.confirmTotp(
        session.userId,
        form.code ?? "",
        form.password ?? "",
        session.id,
      );
    } catch (error) {
      return refusal(reply, error, "security", {
        ...(await data(session.userId)),
        totpError: (error as Error).message,
      });
    }
    // The codes wait, sealed, for the page this redirects to: shown there once, never again.
    await deps.reveals.keep(session.id, "recovery_codes", recoveryCodes);
    return doneRedirect(reply, base, "totp-on");
  });

  pages.post("/security/recovery-codes", signedInOnly, async (request, reply) => {
    const session = signedIn(request);
    let recoveryCodes: string[];
    try {
      const form = request.body as Form;
      recoveryCodes = await deps.secondFactor.regenerateRecoveryCodes(
        session.userId,
        form.password ?? "",
        form.code ?? "",
      );
    } catch (error) {
      return refusal(reply, error, "security", {
        ...(await data(session.userId)),
        totpError: (error as Error).message,
      });
    }
    await deps.reveals.keep(session.id, "recovery_codes", recoveryCodes);
    return doneRedirect(reply, base, "codes");
  });

  pages.post("/security/totp/disable", signedInOnly, async (request, reply) => {
    const session = signedIn(request);
    if ((request.body as Form).confirm !== "yes") {
      return render(
        reply,
        session.userId,
        { totpError: "Tick the box to confirm: signing in will ask for your password only." },
        400,
      );
    }
    try {
      const form = request.body as Form;
      await deps.secondFactor.disableTotp(session.userId, form.password ?? "", form.code ?? "", session.id);
    } catch (error) {
      return refusal(reply, error, "security", {
        ...(await data(session.userId)),
        totpError: (error as Error).message,
      });
    }
    return doneRedirect(reply, base, "totp-off");
  });

  async function data(userId: string) {
    const [user, pending, codesLeft, cooling] = await Promise.all([
      deps.users.getUser(userId),
      deps.secondFactor.pendingTotp(userId),
      deps.secondFactor.recoveryCodesLeft(userId),
      deps.secondFactor.coolingUntil(userId),
    ]);
    const activity = activityLines(await deps.users.activity(user));
    // The QR code is drawn here, as an SVG image in the page: no request leaves this server.
    const qr = pending
      ? `data:image/svg+xml;base64,${Buffer.from(await QRCode.toString(pending.uri, { type: "svg", margin: 1 })).toString("base64")}`
      : undefined;
    return { title: "Sign-in and security", surface, user, pending, qr, activity, codesLeft, cooling };
  }

  async function render(
    reply: FastifyReply,
    userId: string,
    extra: Record<string, unknown> = {},
    status = 200,
  ) {
    return page(reply, "security", { ...(await data(userId)), ...extra }, status);
  }
}

/** Why a person was sent here to set up two-factor sign-in (`?setup=`). */
const SETUP_REASONS: Record<string, string> = {
  money:
    "Moving money takes a code from an authenticator app. Set one up here (it takes a minute), then go back to what you were doing.",
  required:
    "Your business requires two-factor sign-in for every member: set up an authenticator app here before anything else.",
  operator: "Operators sign in with two factors: set up an authenticator app here before anything else.",
};

/** What each form of the page says on the page it lands on. */
const NOTICES: Record<string, string> = {
  password: "Your password is changed. Your other sessions have ended.",
  "totp-on": "Two-factor sign-in is on: you will be asked for a code. Your other sessions have ended.",
  codes: "New recovery codes: the old ones no longer work.",
  "totp-off": "Two-factor sign-in is off. Your other sessions have ended.",
};
