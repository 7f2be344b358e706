import assert from "node:assert/strict";
import { generateKeyPairSync } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, describe, test } from "node:test";
import { parseMasterKey } from "../businesses/master-key.js";
import { ConfigError, loadClientEnvironment, loadConfig, parseDatabaseUrl } from "./load.js";

const HEX_KEY = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";
const KEY_BYTES = Buffer.from(HEX_KEY, "hex");

/** Runs loadConfig and returns the ConfigError it must throw. */
function configError(env: NodeJS.ProcessEnv): ConfigError {
  try {
    loadConfig(env);
  } catch (error) {
    assert.ok(error instanceof ConfigError, `expected ConfigError, got ${String(error)}`);
    return error;
  }
  assert.fail(`loadConfig accepted ${JSON.stringify(env)}`);
}

describe("loadConfig", () => {
  test("the CBN's deadlines: 4 minutes and 24 hours by default, the operator's own when set (issue 46)", () => {
    assert.deepEqual(loadConfig({}).deadlines, { creditLateMs: 4 * 60_000, returnLateMs: 24 * 3_600_000 });
    const own = loadConfig({ DEADLINE_CREDIT_MINUTES: "2", DEADLINE_RETURN_HOURS: "12" });
    assert.deepEqual(own.deadlines, { creditLateMs: 2 * 60_000, returnLateMs: 12 * 3_600_000 });
    for (const [name, value] of [
      ["DEADLINE_CREDIT_MINUTES", "0"],
      ["DEADLINE_CREDIT_MINUTES", "four"],
      ["DEADLINE_RETURN_HOURS", "721"],
    ]) {
      const error = configError({ [name as string]: value });
      assert.equal(error.problems.length, 1, error.message);
      assert.match(error.message, new RegExp(`\\b${name}\\b`));
    }
  });

  test("defaults", () => {
    const config = loadConfig({});
    assert.equal(config.env, "development");
    assert.equal(config.port, 3000);
    assert.equal(config.host, "127.0.0.1");
    assert.deepEqual(config.database, { dialect: "sqlite", file: path.resolve("data/vas.db") });
    assert.ok(path.isAbsolute((config.database as { file: string }).file));
    assert.equal(config.dataDir, path.resolve("data"));
    assert.equal(config.bodyLimitBytes, 16_384);
    assert.equal(config.nubanInstitutionCode, "999240");
    assert.equal(config.logLevel, "info");
    assert.equal(config.masterKey, undefined);
    assert.equal(config.trustProxy, false);
    assert.equal(config.databasePoolSize, 10);
    assert.equal(config.databaseSsl, "disable");
  });

  test("the result is frozen", () => {
    const config = loadConfig({});
    assert.ok(Object.isFrozen(config));
  });

  test("reads every variable it is given", () => {
    const config = loadConfig({
      NODE_ENV: "test",
      PORT: "8080",
      HOST: "0.0.0.0",
      DATABASE_URL: "sqlite:/var/lib/vas/vas.db",
      DATA_DIR: "/var/lib/vas",
      VAS_MASTER_KEY: HEX_KEY,
      LOG_LEVEL: "debug",
      NUBAN_INSTITUTION_CODE: "090267",
      BODY_LIMIT_BYTES: "256",
      TRUST_PROXY: "true",
    });
    assert.equal(config.env, "test");
    assert.equal(config.port, 8080);
    assert.equal(config.host, "0.0.0.0");
    assert.deepEqual(config.database, { dialect: "sqlite", file: "/var/lib/vas/vas.db" });
    assert.equal(config.dataDir, "/var/lib/vas");
    assert.deepEqual(config.masterKey, KEY_BYTES);
    assert.equal(config.logLevel, "debug");
    assert.equal(config.nubanInstitutionCode, "090267");
    assert.equal(config.bodyLimitBytes, 256);
    assert.equal(config.trustProxy, true);
  });

  test("PORT bounds: 0 and 65535 are accepted", () => {
    assert.equal(loadConfig({ PORT: "0" }).port, 0);
    assert.equal(loadConfig({ PORT: "65535" }).port, 65535);
  });

  test("empty-string variables take their defaults", () => {
    const config = loadConfig({
      PORT: "",
      HOST: "",
      DATABASE_URL: "",
      LOG_LEVEL: "",
      NUBAN_INSTITUTION_CODE: "",
      BODY_LIMIT_BYTES: "",
      VAS_MASTER_KEY: "",
      NODE_ENV: "",
    });
    assert.equal(config.port, 3000);
    assert.equal(config.host, "127.0.0.1");
    assert.deepEqual(config.database, { dialect: "sqlite", file: path.resolve("data/vas.db") });
    assert.equal(config.logLevel, "info");
    assert.equal(config.nubanInstitutionCode, "999240");
    assert.equal(config.bodyLimitBytes, 16_384);
    assert.equal(config.masterKey, undefined);
    assert.equal(config.env, "development");
  });

  test("unrelated variables are ignored", () => {
    assert.equal(loadConfig({ PATH: "/usr/bin", HOME: "/root", SOMETHING: "else" }).port, 3000);
  });

  describe("database URLs", () => {
    test("a relative sqlite path is resolved to an absolute one", () => {
      assert.deepEqual(loadConfig({ DATABASE_URL: "sqlite:db/x.db" }).database, {
        dialect: "sqlite",
        file: path.resolve("db/x.db"),
      });
    });

    test("sqlite:///absolute and sqlite:/absolute are the same file", () => {
      assert.deepEqual(loadConfig({ DATABASE_URL: "sqlite:///tmp/x.db" }).database, {
        dialect: "sqlite",
        file: "/tmp/x.db",
      });
      assert.deepEqual(loadConfig({ DATABASE_URL: "sqlite:/tmp/x.db" }).database, {
        dialect: "sqlite",
        file: "/tmp/x.db",
      });
    });

    test("sqlite::memory: stays in memory", () => {
      assert.deepEqual(loadConfig({ DATABASE_URL: "sqlite::memory:" }).database, {
        dialect: "sqlite",
        file: ":memory:",
      });
    });

    for (const url of ["postgres://vas@db:5432/vas", "postgresql://vas:pw@localhost/vas?sslmode=disable"]) {
      test(`accepts ${url}`, () => {
        assert.deepEqual(loadConfig({ DATABASE_URL: url }).database, { dialect: "postgres", url });
      });
    }

    test("parseDatabaseUrl rejects other schemes and empty paths", () => {
      for (const url of ["mysql://x", "sqlite:", "postgres://", "http://db", "./vas.db", "file:vas.db"]) {
        assert.equal(parseDatabaseUrl(url), undefined, url);
      }
    });
  });

  describe("each bad value is a ConfigError naming the variable", () => {
    const cases: Array<[string, string]> = [
      ["PORT", "abc"],
      ["PORT", "70000"],
      ["PORT", "-1"],
      ["PORT", "80.5"],
      ["DATABASE_URL", "mysql://x"],
      ["LOG_LEVEL", "loud"],
      ["NUBAN_INSTITUTION_CODE", "12345"],
      ["NUBAN_INSTITUTION_CODE", "1234567"],
      ["NUBAN_INSTITUTION_CODE", "12345a"],
      ["VAS_MASTER_KEY", "short"],
      ["VAS_MASTER_KEY", HEX_KEY.slice(2)],
      ["BODY_LIMIT_BYTES", "1"],
      ["BODY_LIMIT_BYTES", "2000000"],
      ["NODE_ENV", "staging"],
      ["TRUST_PROXY", "yes"],
      ["DATABASE_SSL", "on"],
    ];
    for (const [name, value] of cases) {
      test(`${name}=${value}`, () => {
        const error = configError({ [name]: value });
        assert.equal(error.problems.length, 1, error.message);
        assert.match(error.problems[0] as string, new RegExp(`\\b${name}\\b`));
        assert.match(error.message, new RegExp(`\\b${name}\\b`));
        assert.equal(error.name, "ConfigError");
      });
    }
  });

  test("several bad values are all reported at once", () => {
    const error = configError({
      PORT: "abc",
      DATABASE_URL: "mysql://x",
      LOG_LEVEL: "loud",
      NUBAN_INSTITUTION_CODE: "12345",
      VAS_MASTER_KEY: "short",
      BODY_LIMIT_BYTES: "1",
    });
    assert.equal(error.problems.length, 6, error.message);
    for (const name of [
      "PORT",
      "DATABASE_URL",
      "LOG_LEVEL",
      "NUBAN_INSTITUTION_CODE",
      "VAS_MASTER_KEY",
      "BODY_LIMIT_BYTES",
    ]) {
      assert.ok(
        error.problems.some((problem) => problem.includes(name)),
        `${name} missing from ${error.message}`,
      );
      assert.ok(error.message.includes(name));
    }
  });

  test("the master key's value is never echoed in the error", () => {
    const bad = `${HEX_KEY.slice(0, 60)}zzzz`;
    const error = configError({ VAS_MASTER_KEY: bad });
    assert.ok(!error.message.includes(bad));
  });

  describe("METRICS_TOKEN", () => {
    test("unset or empty: none; otherwise kept as given", () => {
      assert.equal(loadConfig({}).metricsToken, undefined);
      assert.equal(loadConfig({ METRICS_TOKEN: "" }).metricsToken, undefined);
      for (const token of [HEX_KEY, "a".repeat(16), "A-Za-z0.9_~+/token==", "x".repeat(512)]) {
        assert.equal(loadConfig({ METRICS_TOKEN: token }).metricsToken, token);
      }
    });

    test("too short, too long or outside the bearer alphabet: a ConfigError that never echoes it", () => {
      for (const bad of [
        "a".repeat(15),
        "x".repeat(513),
        "has spaces in it, 0123",
        'quote"d-0123456789abc',
        `${"a".repeat(20)}\n`,
        "é".repeat(16),
      ]) {
        const error = configError({ METRICS_TOKEN: bad });
        assert.equal(error.problems.length, 1, error.message);
        assert.match(error.message, /\bMETRICS_TOKEN\b/);
        assert.ok(!error.message.includes(bad), "the value is never echoed");
      }
    });
  });

  describe("BANK_NOTIFICATION_BAD_SIGNATURES_PER_MIN", () => {
    test("30 by default; 0 turns the limit off", () => {
      assert.equal(loadConfig({}).bankNotificationBadSignaturesPerMinute, 30);
      assert.equal(
        loadConfig({ BANK_NOTIFICATION_BAD_SIGNATURES_PER_MIN: "0" }).bankNotificationBadSignaturesPerMinute,
        0,
      );
      assert.equal(
        loadConfig({ BANK_NOTIFICATION_BAD_SIGNATURES_PER_MIN: "10000" })
          .bankNotificationBadSignaturesPerMinute,
        10_000,
      );
    });

    test("anything but a whole number from 0 to 10000 is a ConfigError naming it", () => {
      for (const bad of ["-1", "10001", "1.5", "many"]) {
        const error = configError({ BANK_NOTIFICATION_BAD_SIGNATURES_PER_MIN: bad });
        assert.equal(error.problems.length, 1, error.message);
        assert.match(error.message, /\bBANK_NOTIFICATION_BAD_SIGNATURES_PER_MIN\b/);
      }
    });
  });

  describe("SANDBOX", () => {
    test("defaults to on outside production and off with NODE_ENV=production", () => {
      assert.equal(loadConfig({}).sandbox, true);
      assert.equal(loadConfig({ NODE_ENV: "development" }).sandbox, true);
      assert.equal(loadConfig({ NODE_ENV: "test" }).sandbox, true);
      assert.equal(
        loadConfig({ NODE_ENV: "production", SMTP_URL: "smtp://127.0.0.1:2525", VAS_MASTER_KEY: HEX_KEY })
          .sandbox,
        false,
      );
      assert.equal(
        loadConfig({
          NODE_ENV: "production",
          SMTP_URL: "smtp://127.0.0.1:2525",
          VAS_MASTER_KEY: HEX_KEY,
          SANDBOX: "",
        }).sandbox,
        false,
      );
    });

    test("an explicit value wins in every environment", () => {
      for (const NODE_ENV of ["development", "test", "production"]) {
        const base = { NODE_ENV, VAS_MASTER_KEY: HEX_KEY, SMTP_URL: "smtp://127.0.0.1:2525" };
        assert.equal(loadConfig({ ...base, SANDBOX: "true" }).sandbox, true, NODE_ENV);
        assert.equal(loadConfig({ ...base, SANDBOX: "1" }).sandbox, true, NODE_ENV);
        assert.equal(loadConfig({ ...base, SANDBOX: "false" }).sandbox, false, NODE_ENV);
        assert.equal(loadConfig({ ...base, SANDBOX: "0" }).sandbox, false, NODE_ENV);
      }
    });

    test("anything else is a ConfigError naming SANDBOX", () => {
      const error = configError({ SANDBOX: "yes" });
      assert.deepEqual(error.problems, ["SANDBOX must be true or false"]);
    });
  });

  describe("production", () => {
    test("NODE_ENV=production without VAS_MASTER_KEY is a ConfigError", () => {
      const error = configError({ NODE_ENV: "production", SMTP_URL: "smtp://127.0.0.1:2525" });
      assert.match(error.message, /VAS_MASTER_KEY/);
      assert.match(error.message, /production/);
    });

    test("NODE_ENV=production without SMTP_URL is a ConfigError: the dashboard's mail has no way out", () => {
      const error = configError({ NODE_ENV: "production", VAS_MASTER_KEY: HEX_KEY });
      assert.match(error.message, /SMTP_URL is required when NODE_ENV=production/);
      assert.match(
        configError({ NODE_ENV: "production", VAS_MASTER_KEY: HEX_KEY, SMTP_URL: "http://mail.example.com" })
          .message,
        /SMTP_URL must be an smtp:\/\/ or smtps:\/\/ URL/,
      );
    });

    test("mail: SMTP when SMTP_URL is set, else files in DATA_DIR/mail; links start with PUBLIC_URL or the listening address", () => {
      const dev = loadConfig({ DATA_DIR: "/tmp/vas-mail-config", HOST: "0.0.0.0", PORT: "3100" });
      assert.deepEqual(dev.mail.transport, { kind: "files", dir: "/tmp/vas-mail-config/mail" });
      assert.equal(dev.mail.publicUrl, "http://localhost:3100");
      const prod = loadConfig({
        NODE_ENV: "production",
        VAS_MASTER_KEY: HEX_KEY,
        SMTP_URL: "smtps://user:pass@mail.example.com:465",
        PUBLIC_URL: "https://vas.example.com/",
        MAIL_FROM: "Payments <payments@example.com>",
        SMTP_GREETING_TIMEOUT_MS: "5000",
      });
      assert.deepEqual(prod.mail, {
        // Each step of a send waits seconds, not minutes (issue 44): the defaults, and one set.
        transport: {
          kind: "smtp",
          url: "smtps://user:pass@mail.example.com:465",
          timeouts: { connectMs: 10_000, greetingMs: 5_000, commandMs: 30_000 },
        },
        from: "Payments <payments@example.com>",
        waitMs: 5_000,
        publicUrl: "https://vas.example.com",
      });
      assert.match(configError({ PUBLIC_URL: "ftp://x" }).message, /PUBLIC_URL must be an http/);
    });

    test("a new authenticator's cool-off: 24 hours in production, none in the sandbox, or as set (issue 43)", () => {
      const prod = { NODE_ENV: "production", VAS_MASTER_KEY: HEX_KEY, SMTP_URL: "smtp://127.0.0.1:2525" };
      assert.equal(loadConfig(prod).dashboard.moneyCoolOffHours, 24);
      assert.equal(loadConfig({ ...prod, SANDBOX: "true" }).dashboard.moneyCoolOffHours, 0);
      assert.equal(loadConfig({}).dashboard.moneyCoolOffHours, 0);
      assert.equal(loadConfig({ ...prod, MONEY_COOL_OFF_HOURS: "6" }).dashboard.moneyCoolOffHours, 6);
      assert.match(configError({ MONEY_COOL_OFF_HOURS: "-1" }).message, /MONEY_COOL_OFF_HOURS/);
    });

    test("an empty VAS_MASTER_KEY counts as missing", () => {
      assert.match(
        configError({ NODE_ENV: "production", SMTP_URL: "smtp://127.0.0.1:2525", VAS_MASTER_KEY: "" })
          .message,
        /VAS_MASTER_KEY/,
      );
    });

    test("loads with a 64-hex key (either case)", () => {
      const config = loadConfig({
        NODE_ENV: "production",
        SMTP_URL: "smtp://127.0.0.1:2525",
        VAS_MASTER_KEY: HEX_KEY,
      });
      assert.equal(config.env, "production");
      assert.deepEqual(config.masterKey, KEY_BYTES);
      assert.deepEqual(
        loadConfig({
          NODE_ENV: "production",
          SMTP_URL: "smtp://127.0.0.1:2525",
          VAS_MASTER_KEY: HEX_KEY.toUpperCase(),
        }).masterKey,
        KEY_BYTES,
      );
    });

    test("loads with a base64 key, padded or not, standard or URL-safe", () => {
      const keyBytes = Buffer.from(`fbff${"00".repeat(28)}fbff`, "hex");
      for (const text of [
        keyBytes.toString("base64"),
        keyBytes.toString("base64").replace(/=$/, ""),
        keyBytes.toString("base64url"),
      ]) {
        const config = loadConfig({
          NODE_ENV: "production",
          SMTP_URL: "smtp://127.0.0.1:2525",
          VAS_MASTER_KEY: text,
        });
        assert.deepEqual(config.masterKey, keyBytes, text);
      }
    });

    test("a key with surrounding whitespace (as read from a file) is accepted", () => {
      assert.deepEqual(loadConfig({ VAS_MASTER_KEY: `${HEX_KEY}\n` }).masterKey, KEY_BYTES);
    });
  });
});

describe("PROVIDER=http", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "vas-config-"));
  const rsa = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const ec = generateKeyPairSync("ec", { namedCurve: "P-256" });
  const file = (name: string, text: string) => {
    writeFileSync(path.join(dir, name), text);
    return path.join(dir, name);
  };
  const privateFile = file("client.pem", rsa.privateKey.export({ type: "pkcs8", format: "pem" }) as string);
  const publicFile = file("bank.pub", rsa.publicKey.export({ type: "spki", format: "pem" }) as string);
  const ecFile = file("ec.pem", ec.privateKey.export({ type: "pkcs8", format: "pem" }) as string);
  const notPem = file("notes.txt", "not a key");
  const http = {
    PROVIDER: "http",
    BANK_URL: "https://bank.example/",
    BANK_APP_ID: "app-1",
    BANK_PRIVATE_KEY_FILE: privateFile,
    BANK_PUBLIC_KEY_FILE: publicFile,
  };

  test("embedded is the default, and the bank's settings are read only for http", () => {
    assert.deepEqual(loadConfig({}).provider, { kind: "embedded" });
    assert.equal(loadConfig({}).bankName, "Virtual Bank");
    const config = loadConfig({ ...http, BANK_TIMEOUT_MS: "2500", BANK_NAME: "Partner Bank" });
    assert.equal(config.provider.kind, "http");
    if (config.provider.kind !== "http") return;
    assert.equal(config.provider.url, "https://bank.example/");
    assert.equal(config.provider.privateKey.type, "private");
    assert.equal(config.provider.bankPublicKey.type, "public");
    assert.deepEqual(
      [config.provider.timeoutMs, config.provider.createAttempts, config.provider.breakerThreshold],
      [2500, 3, 5],
    );
    assert.equal(config.bankName, "Partner Bank");
  });

  test("every missing variable is named at once", () => {
    const error = configError({ PROVIDER: "http" });
    assert.deepEqual(error.problems, [
      "BANK_URL is required when PROVIDER=http",
      "BANK_APP_ID is required when PROVIDER=http",
      "BANK_PRIVATE_KEY_FILE is required when PROVIDER=http",
      "BANK_PUBLIC_KEY_FILE is required when PROVIDER=http",
    ]);
  });

  test("unreadable, non-PEM and non-RSA key files are refused with the variable and the file", () => {
    const missing = configError({ ...http, BANK_PRIVATE_KEY_FILE: path.join(dir, "absent.pem") });
    assert.match(
      missing.problems[0] ?? "",
      /^BANK_PRIVATE_KEY_FILE \(.*absent\.pem\) cannot be read: ENOENT/,
    );
    const garbage = configError({ ...http, BANK_PUBLIC_KEY_FILE: notPem });
    assert.match(garbage.problems[0] ?? "", /^BANK_PUBLIC_KEY_FILE \(.*notes\.txt\) is not a PEM key/);
    const wrongKind = configError({ ...http, BANK_PRIVATE_KEY_FILE: ecFile });
    assert.match(wrongKind.problems[0] ?? "", /holds an EC key; the protocol signs with RSA/);
  });

  test("a bad PROVIDER or BANK_URL, and http:// in production, are refused", () => {
    assert.deepEqual(configError({ PROVIDER: "palmpay" }).problems, ["PROVIDER must be embedded or http"]);
    assert.deepEqual(configError({ ...http, BANK_URL: "ftp://bank" }).problems, [
      "BANK_URL must be an http:// or https:// URL",
    ]);
    assert.deepEqual(
      configError({
        ...http,
        BANK_URL: "http://bank.example",
        NODE_ENV: "production",
        SMTP_URL: "smtp://127.0.0.1:2525",
        VAS_MASTER_KEY: HEX_KEY,
      }).problems,
      ["BANK_URL must be https:// when NODE_ENV=production"],
    );
  });

  after(() => rmSync(dir, { recursive: true, force: true }));
});

describe("parseMasterKey", () => {
  test("64 hex characters", () => {
    assert.deepEqual(parseMasterKey(HEX_KEY), KEY_BYTES);
  });

  test("base64 of 32 bytes", () => {
    assert.deepEqual(parseMasterKey(KEY_BYTES.toString("base64")), KEY_BYTES);
  });

  test("rejects other lengths and alphabets", () => {
    for (const text of [
      "",
      "short",
      HEX_KEY.slice(1),
      `${HEX_KEY}00`,
      `${HEX_KEY.slice(0, 63)}g`,
      Buffer.alloc(31, 1).toString("base64"),
      Buffer.alloc(33, 1).toString("base64"),
    ]) {
      assert.equal(parseMasterKey(text), undefined, text);
    }
  });
});

describe("loadClientEnvironment", () => {
  test("reads the client's variables; empty counts as unset; the base URL has a default", () => {
    assert.deepEqual(loadClientEnvironment({}), {
      apiKey: undefined,
      secretKey: undefined,
      baseUrl: "http://127.0.0.1:3000",
    });
    assert.deepEqual(
      loadClientEnvironment({
        VAS_API_KEY: "vak_x",
        VAS_SECRET_KEY: "",
        VAS_BASE_URL: "https://vas.example/api/v1/external",
      }),
      { apiKey: "vak_x", secretKey: undefined, baseUrl: "https://vas.example/api/v1/external" },
    );
  });
});
