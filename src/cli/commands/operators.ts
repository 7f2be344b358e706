import { type Command, json, parse, positionals, UsageError } from "../command.js";

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
];
