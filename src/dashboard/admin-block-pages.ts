import type { FastifyInstance } from "fastify";
import { creditKey } from "../collections/credit-block-records.js";
import { check } from "../core/validation.js";
import { displayTextSchema } from "../display-name.js";
import { validationFailed } from "../errors.js";
import { type DashboardDependencies, doneNotice, doneRedirect, type Form, page } from "./kit.js";
import { nairaToKobo } from "./money-pages.js";
import { refusal, signedIn } from "./sign-in.js";

// The console's blocks on erroneous credits (issue 46, item 7): a credit its payer's bank disputes
// is found by its transaction id or its NIP session id and an amount of it blocked (out of the
// business's available balance into held), then released or returned to the payer. Every move is
// an admin's, audited, with its event to the business.

/** What the list shows: the blocks standing, or every block. */
const SHOWN = ["standing", "all"] as const;
type Shown = (typeof SHOWN)[number];

/** The longest reason kept (the payer's bank's dispute reference and what it says). */
export const MAX_BLOCK_REASON_LENGTH = 200;

/** A block form's fields: the credit, the amount in naira (empty: all that is left), the reason. 400 naming the field. */
function blockInput(form: Form) {
  const credit = (form.credit ?? "").trim();
  creditKey(credit);
  const amountText = (form.amount ?? "").trim();
  const reason = check(
    displayTextSchema("reason", MAX_BLOCK_REASON_LENGTH, "refuse"),
    (form.reason ?? "").trim(),
  );
  if (reason === "")
    throw validationFailed("Reason must say why: the payer's bank's dispute and its reference");
  return { credit, reason, ...(amountText === "" ? {} : { amount: nairaToKobo(amountText) }) };
}

export function adminBlockPages(pages: FastifyInstance, deps: DashboardDependencies): void {
  const view = async (query: Record<string, unknown>, form: Form = {}) => {
    const show: Shown = query.show === "all" ? "all" : "standing";
    const [blocks, businesses] = await Promise.all([
      deps.creditBlocks.list(show === "all" ? {} : { state: "blocked" }),
      deps.businesses.listBusinesses().then((all) => new Map(all.map((b) => [b.businessId, b.name]))),
    ]);
    return {
      title: "Blocks",
      show,
      blocks,
      businesses,
      form,
      notice: doneNotice(query, {
        blocked: "The credit is blocked: its amount is held, out of the business's available balance.",
        released: "The block is released: its amount is back in the business's available balance.",
        returned: "The return is sent: a refund of the blocked amount to the payer, from held.",
      }),
    };
  };

  pages.get("/blocks", async (request, reply) => {
    return page(reply, "admin-blocks", await view(request.query as Record<string, unknown>));
  });

  pages.post("/blocks", async (request, reply) => {
    const session = signedIn(request);
    const form = request.body as Form;
    try {
      await deps.creditBlocks.block(session.actor, blockInput(form));
    } catch (error) {
      return refusal(reply, error, "admin-blocks", await view({}, form));
    }
    return doneRedirect(reply, "/admin/blocks", "blocked");
  });

  pages.post("/blocks/:id/:action", async (request, reply) => {
    const session = signedIn(request);
    const { id, action } = request.params as { id: string; action: string };
    try {
      if (action !== "release" && action !== "return") throw validationFailed("Release or return a block");
      if (action === "release") await deps.creditBlocks.release(session.actor, id);
      else await deps.blockReturns.returnBlock(session.actor, id);
      return doneRedirect(reply, "/admin/blocks", action === "release" ? "released" : "returned");
    } catch (error) {
      return refusal(reply, error, "admin-blocks", await view({}));
    }
  });
}
