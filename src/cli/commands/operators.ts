import { CLI } from "../../core/actor.js";
import { type Command, json, parse, positionals, UsageError } from "../command.js";
import { QUEUED_WORDS, withMail } from "./mail-outcome.js";

// Operators of the console (/admin): created from the CLI, by whoever runs the service.

export const OPERATOR_COMMANDS: readonly Command[] = [
  {
    name: "operator create",
    synopsis: "--email <email> [--password-stdin] [--json]",
    description: [
      "Create an operator who signs in to the operator console (/admin). The password is asked",
      "for (not shown as it is typed), or, with --password-stdin, read from the first line of",
      "standard input. At least 12 characters; common passwords are refused.",
    ],
    run: async (args, { io, services }) => {
      const { values, positionals: rest } = parse(args, {
        email: { type: "string" },
        "password-stdin": { type: "boolean" },
        json: { type: "boolean" },
      });
      positionals(rest, 0, "no positional arguments");
      if (!values.email) throw new UsageError("--email is required");
      let password: string;
      if (values["password-stdin"]) {
        password = ((await io.readStdin?.()) ?? "").split(/\r?\n/)[0] ?? "";
      } else {
        if (!io.askHidden) throw new UsageError("no terminal to ask for the password: use --password-stdin");
        password = await io.askHidden("Password for the new operator: ");
      }
      const operator = await (await services()).users.createOperator(values.email, password);
      if (values.json) json(io, { operatorId: operator.id, email: operator.email });
      else io.stdout(`Operator ${operator.email} created (id ${operator.id}): sign in at /admin/login\n`);
    },
  },
  {
    name: "user reset-two-factor",
    synopsis: "--email <email> [--json]",
    description: [
      "Turn two-factor sign-in off for a business's user who lost their phone and their recovery",
      "codes (check who is asking first): their secret and codes are gone, every session of theirs",
      "ends, it is audited, and they are mailed. They sign in with the password and turn it on again.",
    ],
    run: async (args, { io, services }) => {
      const { values, positionals: rest } = parse(args, {
        email: { type: "string" },
        json: { type: "boolean" },
      });
      positionals(rest, 0, "no positional arguments");
      if (!values.email) throw new UsageError("--email is required");
      const { users, secondFactor } = await services();
      const user = await users.businessUserByEmail(values.email);
      const { mail } = await withMail(await services(), () => secondFactor.resetByOperator(user.id, CLI));
      if (values.json) return json(io, { userId: user.id, email: user.email, twoFactor: "off", mail });
      io.stdout(
        mail === "queued"
          ? `Two-factor sign-in is off for ${user.email}; their sessions have ended; the mail telling them is ${QUEUED_WORDS}.\n`
          : `Two-factor sign-in is off for ${user.email}; their sessions have ended and they were mailed.\n`,
      );
    },
  },
];
