import type { Clock } from "../clock.js";
import type { Bank, SandboxTransferInput } from "../core/api-types.js";
import { numberSpaceExhausted, providerRejected, providerUnavailable } from "../errors.js";
import type {
  AccountProvider,
  IdentityRegistry,
  IdentityRequest,
  IssuedVirtualAccount,
  VirtualAccountRequest,
} from "./account-provider.js";
import { type BankDirectory, SANDBOX_BANKS } from "./bank-directory.js";
import type { BankStatement, StatementPage, StatementWindow } from "./bank-statement.js";
import { DEFAULT_NIP_READING, type NipReading } from "./nip.js";
import { nubanFromSerial, SERIAL_SPACE } from "./nuban.js";
import {
  type BankPayoutState,
  type BankTransferAnswer,
  type PayoutRail,
  readTransferAnswer,
  type TransferOutRequest,
} from "./payout-rail.js";
import { SerialPermutation } from "./serial-permutation.js";
import type { TransferNotification } from "./transfer-notification.js";
import {
  DEFAULT_PAYOUT_DELAYS,
  type PayoutDelays,
  payoutAnswer,
  sandboxPayee,
  sandboxPayoutRecord,
} from "./virtual-bank-payouts.js";
import { embeddedStatement } from "./virtual-bank-statement.js";
import type { BankAccountRecord, BankPayoutRecord, VirtualBankStore } from "./virtual-bank-store.js";

/** The name the Virtual Bank gives itself: the specification's `bankName`. */
export const VIRTUAL_BANK_NAME = "Virtual Bank";

/**
 * Identity numbers the sandbox answers with a fixed outcome, so integrators can test their
 * error paths (documented in docs/api.md). With the sandbox off they are ordinary numbers.
 */
export const SANDBOX_IDENTITIES = {
  notFound: "00000000001",
  nameMismatch: "00000000002",
  unavailable: "00000000003",
  /** Registered to SANDBOX_REGISTERED_NAME (issue 46): to try the name rule both ways. */
  registered: "00000000004",
} as const;

/** The name on the sandbox's record of `nameMismatch`: no customer's name shares a word with it. */
export const SANDBOX_MISMATCHED_NAME = "Sandbox Registry Holder";
/** The name on the sandbox's record of `registered`. */
export const SANDBOX_REGISTERED_NAME = "Adaeze Ngozi Okafor";

export interface VirtualBankOptions {
  /** Its own records: the serial counter and the accounts it opened. */
  store: VirtualBankStore;
  /** The 6-digit code the check digit is computed for. */
  institutionCode: string;
  permutationKey: Buffer;
  /** Serials reserved from the database counter at a time; unused ones are skipped, never reused. */
  blockSize?: number;
  /**
   * Whether SANDBOX_IDENTITIES give their fixed outcomes (default true). Off, they are issued a
   * number like any other: production turns it off unless SANDBOX=true (config.sandbox).
   */
  sandbox?: boolean;
  /** The service's clock: when an account was opened. */
  now?: Clock;
  /**
   * How long a transfer out stays pending before its destination's outcome, and how long after
   * success a reversing destination sends it back (defaults: 2 s and 10 s; the sandbox promises
   * a final state within 10 s and a reversal within 30 s).
   */
  payoutDelays?: PayoutDelays;
  /** How the service reads the NIP codes it answers (NIP_UNKNOWN_CODES): it is the service's rail too. */
  nipReading?: NipReading;
}

/**
 * The embedded account provider. Account numbers are valid NUBANs whose serials come from a
 * database counter (unique across processes by construction, never reissued) passed through a
 * keyed permutation (consecutive issues look unrelated).
 */
export class VirtualBank
  implements AccountProvider, IdentityRegistry, BankDirectory, PayoutRail, BankStatement
{
  readonly bankName = VIRTUAL_BANK_NAME;
  private readonly permutation: SerialPermutation;
  private readonly blockSize: number;
  private next = 0;
  private end = 0;
  private refill: Promise<void> | undefined;

  private readonly statement: BankStatement;

  constructor(private readonly options: VirtualBankOptions) {
    this.statement = embeddedStatement(options.store, (record) => this.read(this.answerOf(record, "query")));
    this.permutation = new SerialPermutation(options.permutationKey, SERIAL_SPACE);
    this.blockSize = options.blockSize ?? 32;
  }

  async createVirtualAccount(request: VirtualAccountRequest): Promise<IssuedVirtualAccount> {
    checkIdentity(request, this.options.sandbox ?? true);
    const serial = await this.nextSerial();
    // A reference already opened (a retry) answers its first recording, and so does the loser of
    // two creates racing with one reference: the serial taken for it is skipped, never reused.
    // One write, instead of a read before it on every create.
    const recorded = await this.options.store.openOnce({
      reference: request.accountReference,
      accountNumber: nubanFromSerial(this.options.institutionCode, this.permutation.apply(serial)),
      accountName: request.virtualAccountName,
      status: "enabled",
      createdAt: new Date((this.options.now ?? Date.now)()).toISOString(),
    });
    return issued(recorded);
  }

  /**
   * The identity call (issue 46). The Virtual Bank keeps no registry of BVNs and NINs: it answers
   * the name it is sent, but for the sandbox's numbers (SANDBOX_IDENTITIES), whose records are fixed.
   */
  async identityName(request: IdentityRequest): Promise<string | undefined> {
    if (this.options.sandbox ?? true) {
      switch (request.licenseNumber) {
        case SANDBOX_IDENTITIES.notFound:
          return undefined;
        case SANDBOX_IDENTITIES.nameMismatch:
          return SANDBOX_MISMATCHED_NAME;
        case SANDBOX_IDENTITIES.registered:
          return SANDBOX_REGISTERED_NAME;
        case SANDBOX_IDENTITIES.unavailable:
          throw providerUnavailable();
      }
    }
    return request.customerName;
  }

  async findByReference(accountReference: string): Promise<IssuedVirtualAccount | undefined> {
    const known = await this.options.store.findByReference(accountReference);
    return known ? issued(known) : undefined;
  }

  async setAccountEnabled(accountNumber: string, enabled: boolean): Promise<void> {
    if (!(await this.options.store.setStatus(accountNumber, enabled ? "enabled" : "disabled"))) {
      throw providerRejected(`Virtual Bank has no account ${accountNumber}`);
    }
  }

  /** The sandbox's banks (Nigeria's deposit money banks). */
  async listBanks(): Promise<Bank[]> {
    return SANDBOX_BANKS.map((bank) => ({ ...bank }));
  }

  /** Only the sandbox's destination accounts have a name here (bank-directory.ts). */
  async resolveAccount(bankCode: string, accountNumber: string): Promise<string | undefined> {
    return sandboxPayee(bankCode, accountNumber)?.accountName ?? undefined;
  }

  /**
   * Pays out to one of the sandbox's destinations (bank-directory.ts), whose outcome is fixed;
   * any other account is refused, as its name enquiry is. The reference is executed once: asked
   * again, the bank answers the transfer it recorded.
   */
  async transferOut(request: TransferOutRequest): Promise<BankPayoutState> {
    return this.read(await this.sendTransfer(request));
  }

  /** The transfer as the bank answers it, before the service reads it (the Virtual Bank server answers this). */
  async sendTransfer(request: TransferOutRequest): Promise<BankTransferAnswer> {
    const recorded = await this.options.store.recordPayoutOnce(
      sandboxPayoutRecord(
        request,
        this.options.institutionCode,
        (this.options.now ?? Date.now)(),
        this.options.payoutDelays ?? DEFAULT_PAYOUT_DELAYS,
      ),
    );
    return this.answerOf(recorded, "transfer");
  }

  /** Its statement: the credits it made and its transfers out (virtual-bank-statement.ts). */
  statementPage(window: StatementWindow, cursor: string | undefined, size?: number): Promise<StatementPage> {
    return this.statement.statementPage(window, cursor, size);
  }

  findCredit(sessionId: string): Promise<TransferNotification | undefined> {
    return this.statement.findCredit(sessionId);
  }

  async queryTransfer(reference: string): Promise<BankPayoutState | undefined> {
    const answer = await this.findTransfer(reference);
    return answer && this.read(answer);
  }

  /** The status query as the bank answers it (the Virtual Bank server answers this). */
  async findTransfer(reference: string): Promise<BankTransferAnswer | undefined> {
    const recorded = await this.options.store.findPayout(reference);
    return recorded && this.answerOf(recorded, "query");
  }

  /**
   * The embedded bank's payout notifications: tells `apply` of every transfer out whose status
   * changed since it was last told (settled, or sent back), then records that it was told. A
   * failure leaves it to the next run; telling twice is harmless (the service applies a status once).
   */
  async notifyPayouts(apply: (state: BankPayoutState) => Promise<unknown>): Promise<number> {
    const now = new Date((this.options.now ?? Date.now)()).toISOString();
    const due = await this.options.store.payoutsToNotify(now, 64);
    for (const record of due) {
      const answer = this.answerOf(record, "notification");
      await apply(this.read(answer));
      await this.options.store.markNotified(record.reference, record.notified, answer.bankStatus);
    }
    return due.length;
  }

  /** A transfer out's answer now, as the bank gives it (virtual-bank-payouts.ts). */
  answerOf(record: BankPayoutRecord, asked: "transfer" | "query" | "notification"): BankTransferAnswer {
    return payoutAnswer(record, asked, (this.options.now ?? Date.now)());
  }

  /** The service's reading of the bank's answer (providers/nip.ts). */
  private read(answer: BankTransferAnswer): BankPayoutState {
    return readTransferAnswer(answer, this.options.nipReading ?? DEFAULT_NIP_READING);
  }

  private async nextSerial(): Promise<number> {
    while (this.next >= this.end) {
      this.refill ??= this.reserveBlock().finally(() => {
        this.refill = undefined;
      });
      await this.refill;
    }
    return this.next++;
  }

  private async reserveBlock(): Promise<void> {
    const end = await this.options.store.reserveSerials(this.blockSize);
    const start = end - this.blockSize;
    if (start >= SERIAL_SPACE) throw numberSpaceExhausted();
    this.next = start;
    this.end = Math.min(end, SERIAL_SPACE);
  }
}

/**
 * The bank's own identity rules: what a real upstream would check before issuing, plus the
 * sandbox's fixed outcomes when `sandbox` is on.
 */
export function checkIdentity(request: VirtualAccountRequest, sandbox: boolean): void {
  const label = request.identityType === "personal" ? "BVN" : "NIN";
  const number = request.licenseNumber;
  if (!/^\d{11}$/.test(number)) throw providerRejected(`Invalid ${label}: it must be exactly 11 digits`);
  if (!sandbox) return;
  switch (number) {
    case SANDBOX_IDENTITIES.notFound:
      throw providerRejected(`${label} verification failed: no record found for this ${label}`);
    case SANDBOX_IDENTITIES.nameMismatch:
      throw providerRejected(
        `${label} verification failed: the customer name does not match the ${label} record`,
      );
    case SANDBOX_IDENTITIES.unavailable:
      throw providerUnavailable();
  }
}

/** A payment the sandbox makes into one of the bank's accounts (missing payer details get defaults). */
export interface SandboxPayment extends SandboxTransferInput {
  /** The bank's session id; a retried request passes the same one, so it is recorded once. */
  sessionId: string;
  /** The value time (the bank's clock). */
  paidAt: string;
}

/** The payer the sandbox pays from when the caller names none. */
export const SANDBOX_PAYER = { name: "Sandbox Payer", accountNumber: "0123456789", bankName: "Sandbox Bank" };

/**
 * The notification the Virtual Bank sends for a sandbox payment, exactly as a real bank's would
 * read (in NGN, the sandbox's payer where the caller names none). The caller records it through
 * the one ingestion path, as it records a bank's.
 */
export function sandboxNotification(payment: SandboxPayment): TransferNotification {
  return {
    sessionId: payment.sessionId,
    accountNumber: payment.accountNumber,
    amount: payment.amount,
    currency: "NGN",
    payer: {
      name: payment.payerName ?? SANDBOX_PAYER.name,
      accountNumber: payment.payerAccountNumber ?? SANDBOX_PAYER.accountNumber,
      bankName: payment.payerBankName ?? SANDBOX_PAYER.bankName,
      bankCode: payment.payerBankCode ?? null,
    },
    narration: payment.narration ?? "Sandbox transfer",
    paidAt: payment.paidAt,
  };
}

const issued = (record: BankAccountRecord): IssuedVirtualAccount => ({
  accountNumber: record.accountNumber,
  accountName: record.accountName,
  accountReference: record.reference,
});
