import { randomUUID } from "node:crypto";
import { parseBusinessName } from "../accounts/validation.js";
import { AppError, ErrorCode } from "../errors.js";
import {
  findApiKeyByHash,
  insertApiKey,
  listApiKeys,
  updateApiKeyStatus,
  updateMinSignatureVersion,
} from "../storage/api-key-repository.js";
import {
  findBusiness,
  insertBusiness,
  listBusinesses,
  updateVerificationStatus,
} from "../storage/business-repository.js";
import type { Storage } from "../storage/database.js";
import {
  API_KEY_STATUSES,
  type ApiKeyStatus,
  type Business,
  VERIFICATION_STATUSES,
  type VerificationStatus,
} from "../storage/schema.js";
import { type Executor, writeTransaction } from "../storage/transactions.js";
import { displayPrefix, generateKeyPair, hashApiKey, secretContext } from "./api-keys.js";
import type { SecretBox } from "./secret-box.js";

/** A key pair as handed to the business: the only time the secret is ever shown. */
export interface IssuedKeyPair {
  keyId: string;
  apiKey: string;
  secretKey: string;
}

export interface ApiKeySummary {
  keyId: string;
  prefix: string;
  status: ApiKeyStatus;
  /** The oldest signature version the key accepts (1, or 2 when version 2 is required). */
  minSignatureVersion: number;
  createdAt: string;
  updatedAt: string;
}

const notFound = (what: string) => new AppError(ErrorCode.NOT_FOUND, 404, what);
const invalid = (message: string) => new AppError(ErrorCode.VALIDATION_FAILED, 400, message);

export function isVerificationStatus(value: string): value is VerificationStatus {
  return (VERIFICATION_STATUSES as readonly string[]).includes(value);
}

export function isApiKeyStatus(value: string): value is ApiKeyStatus {
  return (API_KEY_STATUSES as readonly string[]).includes(value);
}

/** Businesses, their verification status and their API keys: what the admin CLI manages. */
export class BusinessService {
  constructor(
    private readonly storage: Storage,
    private readonly box: SecretBox,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async createBusiness(
    name: string,
    status: VerificationStatus = "not_submitted",
  ): Promise<{ business: Business } & IssuedKeyPair> {
    // It becomes part of every account name and is printed by the CLI: the customer-name rules.
    const checkedName = parseBusinessName(name);
    if (!isVerificationStatus(status)) throw invalid(`unknown verification status: ${status}`);
    const now = this.now().toISOString();
    const business: Business = {
      id: randomUUID(),
      name: checkedName,
      verification_status: status,
      account_count: 0,
      created_at: now,
      updated_at: now,
    };
    const keys = await writeTransaction(this.storage, async (trx) => {
      await insertBusiness(trx, business);
      return this.insertKeyPair(trx, business.id, now);
    });
    return { business, ...keys };
  }

  async setVerificationStatus(businessId: string, status: VerificationStatus): Promise<void> {
    if (!isVerificationStatus(status)) throw invalid(`unknown verification status: ${status}`);
    const updated = await updateVerificationStatus(
      this.storage.db,
      businessId,
      status,
      this.now().toISOString(),
    );
    if (!updated) throw notFound(`no business with id ${businessId}`);
  }

  listBusinesses(): Promise<Business[]> {
    return listBusinesses(this.storage.db);
  }

  async createKey(businessId: string): Promise<IssuedKeyPair> {
    return writeTransaction(this.storage, async (trx) => {
      if (!(await findBusiness(trx, businessId))) throw notFound(`no business with id ${businessId}`);
      return this.insertKeyPair(trx, businessId, this.now().toISOString());
    });
  }

  async listKeys(businessId: string): Promise<ApiKeySummary[]> {
    if (!(await findBusiness(this.storage.db, businessId)))
      throw notFound(`no business with id ${businessId}`);
    const rows = await listApiKeys(this.storage.db, businessId);
    return rows.map((row) => ({
      keyId: row.id,
      prefix: row.key_prefix,
      status: row.status,
      minSignatureVersion: row.min_signature_version,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
    }));
  }

  /** Activates, deactivates or revokes a key. Revocation is final: a revoked key never changes again. */
  async setKeyStatus(apiKey: string, status: ApiKeyStatus): Promise<void> {
    if (!isApiKeyStatus(status)) throw invalid(`unknown key status: ${status}`);
    const key = await findApiKeyByHash(this.storage.db, hashApiKey(apiKey));
    if (!key) throw notFound("no such API key");
    if (key.status === "revoked" && status === "revoked") return;
    const changed =
      key.status !== "revoked" &&
      (await updateApiKeyStatus(this.storage.db, key.id, status, this.now().toISOString()));
    if (!changed)
      throw new AppError(ErrorCode.CONFLICT, 409, "this API key is revoked; revocation is permanent");
  }

  /**
   * Sets the oldest signature version a key accepts: 2 refuses requests signed the
   * specification's way (version 1) with this key; 1 accepts both again.
   */
  async requireSignatureVersion(keyId: string, version: 1 | 2): Promise<void> {
    if (version !== 1 && version !== 2) throw invalid(`unknown signature version: ${String(version)}`);
    const updated = await updateMinSignatureVersion(
      this.storage.db,
      keyId,
      version,
      this.now().toISOString(),
    );
    if (!updated) throw notFound(`no API key with id ${keyId}`);
  }

  private async insertKeyPair(trx: Executor, businessId: string, now: string): Promise<IssuedKeyPair> {
    const pair = generateKeyPair();
    const id = randomUUID();
    await insertApiKey(trx, {
      id,
      business_id: businessId,
      key_hash: hashApiKey(pair.apiKey),
      key_prefix: displayPrefix(pair.apiKey),
      secret_ciphertext: this.box.seal(pair.secretKey, secretContext(id)),
      status: "active",
      created_at: now,
      updated_at: now,
    });
    return { keyId: id, ...pair };
  }
}
