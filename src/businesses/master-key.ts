import { randomBytes } from "node:crypto";
import { existsSync, linkSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { createPrivateDirectory } from "../storage/files.js";

export const MASTER_KEY_FILE = "master.key";

/** Where the master key came from, so the process can say so in its log. */
export type MasterKeySource = "environment" | "file" | "generated";

/**
 * The configured master key, or the one kept in `<dataDir>/master.key`, generating that file
 * (mode 0600) on first use. Callers must refuse this fallback in production (config does).
 */
export function resolveMasterKey(
  configured: Buffer | undefined,
  dataDir: string,
): { key: Buffer; source: MasterKeySource; file?: string } {
  if (configured) return { key: configured, source: "environment" };
  const file = path.join(dataDir, MASTER_KEY_FILE);
  if (existsSync(file)) return { key: readKeyFile(file), source: "file", file };
  createPrivateDirectory(dataDir);
  // Written whole to a private temporary file, then linked into place: link fails if another
  // process won the race, and nobody ever reads a half-written key.
  const temporary = `${file}.${process.pid}.${randomBytes(4).toString("hex")}`;
  writeFileSync(temporary, `${randomBytes(32).toString("hex")}\n`, { flag: "wx", mode: 0o600 });
  try {
    linkSync(temporary, file);
    return { key: readKeyFile(file), source: "generated", file };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    return { key: readKeyFile(file), source: "file", file };
  } finally {
    unlinkSync(temporary);
  }
}

function readKeyFile(file: string): Buffer {
  const key = parseMasterKey(readFileSync(file, "utf8"));
  if (!key) throw new Error(`${file} does not hold a 32-byte master key (64 hex characters)`);
  return key;
}

/** A 32-byte key written as 64 hex characters or as base64. */
export function parseMasterKey(text: string): Buffer | undefined {
  const trimmed = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(trimmed)) return Buffer.from(trimmed, "hex");
  if (/^[A-Za-z0-9+/_-]{43}=?$/.test(trimmed)) {
    const key = Buffer.from(trimmed, "base64");
    if (key.length === 32) return key;
  }
  return undefined;
}
