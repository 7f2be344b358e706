import { parseBusinessName } from "../../businesses/business-name.js";
import { CLI } from "../../core/actor.js";
import { VERIFICATION_STATUSES, type VerificationStatus } from "../../core/business-states.js";
import { argument, businessId, type Command, json, parse, positionals, UsageError } from "../command.js";
import { formatTable } from "../table.js";
import { QUEUED_WORDS, withMail } from "./mail-outcome.js";

// Businesses and their verification, from the CLI.

/** A verification status argument; anything else is a usage error. */
function status(value: string): VerificationStatus {
  if (!(VERIFICATION_STATUSES as readonly string[]).includes(value)) {
    throw new UsageError(`unknown status "${value}": use one of ${VERIFICATION_STATUSES.join(", ")}`);
  }
  return value as VerificationStatus;
}

export const BUSINESS_COMMANDS: readonly Command[] = [
  {
    name: "business create",
    synopsis: "--name <name> [--status <status>] [--json]",
    description: [
      "Create a business and its first API key pair. The secret key is shown once, here only.",
      "The name follows the customer-name rules: trimmed and NFC-normalised, 1 to 100 characters,",
      "no control or bidirectional control characters, at least one visible character.",
      "--status defaults to not_submitted. --json prints one JSON object:",
      '{"businessId","name","verificationStatus","apiKey","secretKey"}',
    ],
    run: async (args, { io, services }) => {
      const { values, positionals: rest } = parse(args, {
        name: { type: "string" },
        status: { type: "string" },
        json: { type: "boolean" },
      });
      positionals(rest, 0, "no positional arguments");
      if (values.name === undefined) throw new UsageError("--name is required");
      // Arguments are all checked before the database is opened: a usage error writes nothing.
      const name = argument(() => parseBusinessName(values.name));
      const initial = values.status === undefined ? undefined : status(values.status);
      const created = await (await services()).businesses.createBusiness(name, initial);
      const result = {
        businessId: created.business.id,
        name: created.business.name,
        verificationStatus: created.business.verificationStatus,
        apiKey: created.apiKey,
        secretKey: created.secretKey,
      };
      if (values.json) return json(io, result);
      io.stdout(
        `Created business "${result.name}" (${result.businessId}), status ${result.verificationStatus}\n` +
          `API key:    ${result.apiKey}\nSecret key: ${result.secretKey}\n` +
          "Store the secret key now: it is not shown again.\n",
      );
    },
  },
  {
    name: "business set-status",
    synopsis: "<businessId> <status> [--reason <text>]",
    description: [
      'Move a business through verification. Only "completed" businesses may call the API. Allowed:',
      "not_submitted or rejected -> in_progress (submit), in_progress -> completed (approve),",
      "in_progress -> rejected (reject) and completed -> rejected (suspend); the last two need",
      "--reason. Every change is recorded (see business history).",
    ],
    run: async (args, { io, services }) => {
      const { values, positionals: rest } = parse(args, { reason: { type: "string" } });
      const [id, value] = positionals(rest, 2, "<businessId> <status>") as [string, string];
      const business = businessId(id);
      const next = status(value);
      const opened = await services();
      const { result: change, mail } = await withMail(opened, () =>
        opened.businesses.setVerificationStatus(business, next, CLI, values.reason),
      );
      const told =
        mail === "sent"
          ? " Its people were mailed."
          : mail === "queued"
            ? ` The mail to its people is ${QUEUED_WORDS}.`
            : "";
      io.stdout(`Business ${id} is now ${value} (was ${change.from}).${told}\n`);
    },
  },
  {
    name: "business invite-owner",
    synopsis: "<businessId> <email> [--json]",
    description: [
      "Invite the owner of a business made with business create (it has no dashboard user): they",
      "are mailed a link that works once, for 7 days, to choose their password and sign in. A",
      "business that has an owner is refused; its owner invites members from the dashboard's Team page.",
    ],
    run: async (args, { io, services }) => {
      const { values, positionals: rest } = parse(args, { json: { type: "boolean" } });
      const [id, email] = positionals(rest, 2, "<businessId> <email>") as [string, string];
      const business = businessId(id);
      const opened = await services();
      const { result: invited, mail } = await withMail(opened, () =>
        opened.invitations.inviteOwner(business, email),
      );
      if (values.json) return json(io, { businessId: business, ...invited, mail });
      io.stdout(
        mail === "queued"
          ? `Invitation to ${invited.email} ${QUEUED_WORDS}. Its link works once, until ${invited.expiresAt} (UTC).\n`
          : `Invitation mailed to ${invited.email}: the link works once, until ${invited.expiresAt} (UTC).\n`,
      );
    },
  },
  {
    name: "business history",
    synopsis: "<businessId> [--json]",
    description: ["Every change of the business's verification status: when, from, to, by whom and why."],
    run: async (args, { io, services }) => {
      const { values, positionals: rest } = parse(args, { json: { type: "boolean" } });
      const [id] = positionals(rest, 1, "<businessId>") as [string];
      const history = await (await services()).businesses.verificationHistory(businessId(id));
      if (values.json) return json(io, history);
      const rows = history.map((change) => ({
        at: change.at,
        from: change.from,
        to: change.to,
        by: change.actor.id ? `${change.actor.type} ${change.actor.id}` : change.actor.type,
        reason: change.reason ?? "",
      }));
      io.stdout(formatTable(rows, ["at", "from", "to", "by", "reason"]));
    },
  },
  {
    name: "business list",
    synopsis: "[--json]",
    description: ["List businesses."],
    run: async (args, { io, services }) => {
      const { values, positionals: rest } = parse(args, { json: { type: "boolean" } });
      positionals(rest, 0, "no positional arguments");
      const rows = (await (await services()).businesses.listBusinesses()).map((b) => ({
        businessId: b.businessId,
        name: b.name,
        verificationStatus: b.verificationStatus,
        accounts: b.accounts,
        createdAt: b.createdAt,
      }));
      if (values.json) return json(io, rows);
      io.stdout(formatTable(rows, ["businessId", "name", "verificationStatus", "accounts", "createdAt"]));
    },
  },
];
