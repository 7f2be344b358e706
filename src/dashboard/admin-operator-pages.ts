import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { OPERATOR_ROLE_LABELS, operatorRoleOf } from "../businesses/operators.js";
import { checkForm, emailField } from "../core/form-fields.js";
import { AppError, ErrorCode } from "../errors.js";
import { MAIL_QUEUED_WORDS } from "../mail/mailer.js";
import { type DashboardDependencies, doneNotice, doneRedirect, type Form, page } from "./kit.js";
import { refusal, signedIn } from "./sign-in.js";

// The console's operators (issue 28, item 11): an admin invites one with a role, changes a
// role, disables and enables. A reviewer decides verifications and reads everything; what
// changes money, access or the operators is an admin's (the server refuses it, not only the page).

const NOTICES: Record<string, string> = {
  invited: "The invitation is mailed: its link sets their password, once, within 7 days.",
  "invited-queued": `The invitation is ${MAIL_QUEUED_WORDS}. Its link sets their password, once, within 7 days.`,
  role: "The role is changed; it applies from their next page.",
  disabled: "The operator is disabled: their sessions have ended and they cannot sign in.",
  enabled: "The operator is enabled: they can sign in again.",
};

export function adminOperatorPages(pages: FastifyInstance, deps: DashboardDependencies): void {
  const view = async (request: FastifyRequest, extra: Record<string, unknown> = {}) => ({
    title: "Operators",
    operators: await deps.operators.list(),
    roles: OPERATOR_ROLE_LABELS,
    me: signedIn(request).userId,
    invite: { email: "", role: "reviewer" },
    notice: doneNotice(request.query, NOTICES),
    ...extra,
  });

  pages.get("/operators", async (request, reply) => page(reply, "admin-operators", await view(request)));

  pages.post("/operators", async (request, reply) => {
    const session = signedIn(request);
    const form = request.body as Form;
    let mailQueued = false;
    try {
      const { email, role } = checkForm(form, {
        email: { label: "Their email", check: emailField("Their email") },
        role: { label: "Role", check: operatorRoleOf },
      });
      if (session.actor.type !== "operator") throw new AppError(ErrorCode.FORBIDDEN, 403, "Operators only");
      const actor = session.actor;
      ({ queued: mailQueued } = await deps.mailing(() => deps.operators.invite(actor, email, role)));
    } catch (error) {
      return refusal(reply, error, "admin-operators", await view(request, { invite: form }));
    }
    return doneRedirect(reply, "/admin/operators", mailQueued ? "invited-queued" : "invited");
  });

  for (const change of ["role", "disable", "enable"] as const) {
    pages.post(`/operators/:id/${change}`, async (request, reply: FastifyReply) => {
      const session = signedIn(request);
      const { id } = request.params as { id: string };
      const form = request.body as Form;
      try {
        if (change === "role") await deps.operators.setRole(session.actor, id, operatorRoleOf(form.role));
        else {
          if (change === "disable" && form.confirm !== "yes") {
            throw new AppError(
              ErrorCode.VALIDATION_FAILED,
              400,
              "Tick the box beside Disable to confirm: their sessions end at once.",
            );
          }
          await deps.operators.setDisabled(session.actor, id, change === "disable");
        }
      } catch (error) {
        return refusal(reply, error, "admin-operators", await view(request));
      }
      return doneRedirect(reply, "/admin/operators", change === "role" ? "role" : `${change}d`);
    });
  }
}
