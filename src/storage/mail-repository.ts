import { sql } from "kysely";
import type { Executor } from "./executor.js";

// The mail outbox's reads and writes (issue 28): queued, claimed by one sender at a time, sent
// (its content dropped) or tried again, and given up on after its attempts.

/**
 * Queues a message given in the domain's names (mail/mailer.ts's queue gives it): due at
 * once, never tried, claimed by no sender.
 */
export async function queueMail(
  db: Executor,
  mail: {
    id: string;
    kind: string;
    recipient: string;
    businessId: string | null;
    sealed: string;
    createdAt: string;
  },
): Promise<void> {
  await db
    .insertInto("mail_outbox")
    .values({
      id: mail.id,
      kind: mail.kind,
      recipient: mail.recipient,
      business_id: mail.businessId,
      sealed: mail.sealed,
      status: "queued",
      attempts: 0,
      next_attempt_at: mail.createdAt,
      claimed_until: null,
      last_error: null,
      created_at: mail.createdAt,
      sent_at: null,
    })
    .execute();
}

/**
 * Claims up to `limit` messages due by `now` for this sender until `until`: the conditions are
 * checked again on the rows it updates, so two senders never take one message. What a sender
 * needs of each (mail/mailer.ts's ClaimedMail).
 */
export async function claimDueMail(db: Executor, now: string, until: string, limit: number) {
  const claimable = sql<boolean>`status = 'queued' and next_attempt_at <= ${now} and (claimed_until is null or claimed_until < ${now})`;
  return db
    .updateTable("mail_outbox")
    .set({ claimed_until: until })
    .where(claimable)
    .where(
      "id",
      "in",
      db.selectFrom("mail_outbox").select("id").where(claimable).orderBy("next_attempt_at").limit(limit),
    )
    .returning(["id", "kind", "recipient", "sealed", "attempts"])
    .execute();
}

/** How many of these messages were sent. */
export async function countSentMail(db: Executor, ids: readonly string[]): Promise<number> {
  if (ids.length === 0) return 0;
  const row = await db
    .selectFrom("mail_outbox")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("id", "in", ids)
    .where("status", "=", "sent")
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** How many messages wait to be sent: queued, not given up on. */
export async function countWaitingMail(db: Executor): Promise<number> {
  const row = await db
    .selectFrom("mail_outbox")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("status", "=", "queued")
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Sent: its content is dropped. */
export async function markMailSent(db: Executor, id: string, now: string): Promise<void> {
  await db
    .updateTable("mail_outbox")
    .set({ status: "sent", sealed: null, sent_at: now, claimed_until: null, last_error: null })
    .where("id", "=", id)
    .execute();
}

/** Not sent: tried again at `next`, or given up on (its content dropped) when `next` is undefined. */
export async function markMailUnsent(
  db: Executor,
  id: string,
  attempts: number,
  error: string,
  next: string | undefined,
): Promise<void> {
  await db
    .updateTable("mail_outbox")
    .set(
      next === undefined
        ? { status: "failed", sealed: null, attempts, last_error: error, claimed_until: null }
        : { attempts, last_error: error, next_attempt_at: next, claimed_until: null },
    )
    .where("id", "=", id)
    .execute();
}

/** The emails of a business's users (today its owner; with teams, every member). */
export async function businessUserEmails(db: Executor, businessId: string): Promise<string[]> {
  const rows = await db
    .selectFrom("users")
    .select("email")
    .where("business_id", "=", businessId)
    .where("role", "=", "business")
    .orderBy("created_at")
    .execute();
  return rows.map((row) => row.email);
}

/** The email of a business's owner (undefined while it has none). */
export async function ownerEmail(db: Executor, businessId: string): Promise<string | undefined> {
  const row = await db
    .selectFrom("users")
    .select("email")
    .where("business_id", "=", businessId)
    .where("member_role", "=", "owner")
    .executeTakeFirst();
  return row?.email;
}
