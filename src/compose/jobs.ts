import type { FastifyInstance } from "fastify";
import type { Clock } from "../clock.js";
import { JobRunner } from "../jobs/job-runner.js";
import { recordCheckpoint } from "../ledger-audit/checkpoint.js";
import { DISCREPANCY_CATEGORIES, type ReconciliationReport } from "../reconciliation/report.js";

import type { Services } from "./services.js";

// The server's background jobs over the services: each job's interval and pass, and the hooks
// that wake them (a payout just held). Part of the one composition (server.ts), kept apart for
// its size; the server starts and stops them.

/** How often temporary accounts past expiry get their account.expired event (within a minute). */
export const EXPIRY_SCAN_INTERVAL_MS = 20_000;

/** How often events past EVENT_RETENTION_DAYS are removed (in small batches). */
export const EVENT_PRUNE_INTERVAL_MS = 10 * 60_000;

/** How often expired replay and Idempotency-Key records are pruned. */
export const PRUNE_INTERVAL_MS = 60_000;

/** How often the mail job sends what is due (a message just queued is sent at once). */
export const MAIL_INTERVAL_MS = 15_000;

/** How often the ledger's heads are checkpointed (only those that moved; see docs/ledger.md). */
export const LEDGER_CHECKPOINT_INTERVAL_MS = 60 * 60_000;

/** How often credits and payouts are compared with the CBN's deadlines (issue 46, item 3). */
export const DEADLINE_WATCH_INTERVAL_MS = 60_000;

/** How often held credits past HELD_CREDIT_DAYS are looked for and returned (issue 46, item 6). */
export const HELD_CREDIT_INTERVAL_MS = 60_000;

/**
 * The background jobs over open services, not yet started (the server starts them when it
 * listens); their failures, and what their passes report, go to the log.
 */
export function composeJobs(services: Services, log: FastifyInstance["log"], now?: Clock): JobRunner {
  const { config } = services;
  const jobs = new JobRunner((job, error) => log.warn({ err: error, job }, "background job failed"));
  jobs.add({
    name: "prune-request-records",
    intervalMs: PRUNE_INTERVAL_MS,
    run: () => services.requestRecords.prune(),
  });
  jobs.add({
    name: "prune-events",
    intervalMs: EVENT_PRUNE_INTERVAL_MS,
    run: () => services.events.prune(),
  });
  jobs.add({
    name: "prune-sessions",
    intervalMs: EVENT_PRUNE_INTERVAL_MS,
    run: async () => {
      await services.sessions.prune();
      await services.users.pruneSignInAttempts();
      await services.signUps.prune();
      await services.invitations.prune();
    },
  });
  jobs.add({
    name: "emit-account-expired",
    intervalMs: EXPIRY_SCAN_INTERVAL_MS,
    run: () => services.lifecycle.emitExpirations(),
  });
  jobs.add({
    name: "ledger-checkpoint",
    intervalMs: LEDGER_CHECKPOINT_INTERVAL_MS,
    run: () => recordCheckpoint(services.storage, services.box, now),
  });
  jobs.add({
    name: "check-payouts",
    intervalMs: config.payouts.checkIntervalMs,
    run: () => services.payoutTracker.run(),
  });
  jobs.add({
    name: "settle",
    intervalMs: config.settlements.checkIntervalMs,
    run: async () => {
      const pass = await services.settlements.runScheduled();
      for (const settled of pass.settled) {
        log.info(
          { settlementId: settled.id, amount: settled.amount, trigger: settled.trigger },
          "settlement made",
        );
      }
      for (const skipped of pass.skipped) log.debug(skipped, "settlement passed over");
    },
  });
  jobs.add({
    name: "reconcile",
    intervalMs: config.reconciliation.intervalMs,
    run: () => reconcilePass(services, log),
  });
  jobs.add({
    // Issue 46, item 6: held credits neither accepted nor returned in HELD_CREDIT_DAYS go back.
    name: "return-held-credits",
    intervalMs: HELD_CREDIT_INTERVAL_MS,
    run: async () => {
      const at = (now ?? Date.now)();
      const pass = await services.refunds.returnExpired(new Date(at - config.heldCreditMs).toISOString());
      for (const id of pass.returned)
        log.info({ transactionId: id }, "held credit returned after HELD_CREDIT_DAYS");
      for (const id of pass.failed) log.warn({ transactionId: id }, "held credit could not be returned");
    },
  });
  jobs.add({
    name: "watch-deadlines",
    intervalMs: DEADLINE_WATCH_INTERVAL_MS,
    run: () => deadlinePass(services, log),
  });
  jobs.add({ name: "send-mail", intervalMs: MAIL_INTERVAL_MS, run: () => services.mailer.deliver() });
  services.mailer.useLog(log);
  const notices = services.bankPayoutNotices;
  if (notices) {
    jobs.add({ name: "virtual-bank-payout-notices", intervalMs: notices.intervalMs, run: notices.run });
  }
  services.payoutTracker.useLog(log);
  // A payout just held is sent to the bank at once, not at the tracker's next pass.
  services.payouts.onHeld(() => services.payoutTracker.kick());
  return jobs;
}

/**
 * The reconcile job's pass (issue 27): credits the bank's statement has that no notification
 * brought, each day's report once it is over; every discrepancy raises the alarm (the metric, an
 * error line, the console's banner).
 */
async function reconcilePass(services: Services, log: FastifyInstance["log"]): Promise<void> {
  const { reconciliation, metrics } = services;
  const pass = await reconciliation.runPass();
  for (const transaction of pass.recovered) {
    metrics.reconciliationRecovered.inc();
    log.warn(
      { transactionId: transaction.id, sessionId: transaction.sessionId, amount: transaction.amount },
      "payment recovered from the bank's statement: its notification never arrived",
    );
  }
  for (const report of pass.reports) logReport(log, report);
  const attention = await reconciliation.needingAttention();
  for (const category of DISCREPANCY_CATEGORIES) {
    metrics.reconciliationDiscrepancies.set(
      { category },
      attention.reduce((sum, report) => sum + report[category].count, 0),
    );
  }
}

/** A report as an operator reads it in the log: an error when it found discrepancies. */
export function logReport(
  log: Pick<FastifyInstance["log"], "info" | "error">,
  report: ReconciliationReport,
): void {
  const counts = Object.fromEntries(
    DISCREPANCY_CATEGORIES.map((category) => [category, report[category].count]),
  );
  const details = {
    reportId: report.id,
    date: report.date,
    matched: report.matched.count,
    recovered: report.recovered.count,
    ...counts,
  };
  if (report.discrepancies > 0) {
    log.error(
      { ...details, code: "RECONCILIATION_DISCREPANCY" },
      "reconciliation found discrepancies with the bank: see the console's Reconciliation page or vas reconcile",
    );
  } else log.info(details, "reconciliation: the ledger and the bank agree");
}

/**
 * The deadlines job's pass (issue 46, item 3): each late credit and each payout whose money is
 * late back (or not back) is counted and gets one warning, by the process that recorded it; a
 * payout at risk whose money came back since gets an info line.
 */
export async function deadlinePass(
  services: Pick<Services, "deadlines" | "metrics">,
  log: Pick<FastifyInstance["log"], "warn" | "info">,
): Promise<void> {
  const { deadlines, metrics } = services;
  const pass = await deadlines.run();
  const minutes = deadlines.creditLateMs / 60_000;
  const hours = deadlines.returnLateMs / 3_600_000;
  for (const credit of pass.lateCredits) {
    metrics.deadlineMisses.inc({ kind: "credit" });
    log.warn(
      {
        code: "CREDIT_APPLIED_LATE",
        transactionId: credit.itemId,
        businessId: credit.businessId,
        sessionId: credit.sessionId,
        amount: credit.amount,
        paidAt: credit.startedAt,
        appliedAt: credit.endedAt,
        elapsedMs: credit.lateMs,
        limitMs: deadlines.creditLateMs,
      },
      `credit applied more than ${minutes} minutes after the bank's paid time (CBN deadline): see the console's Deadlines page`,
    );
  }
  for (const payout of [...pass.lateReturns, ...pass.atRisk]) {
    metrics.deadlineMisses.inc({ kind: "return" });
    const back = payout.endedAt !== null;
    log.warn(
      {
        code: back ? "PAYOUT_RETURNED_LATE" : "PAYOUT_RETURN_OVERDUE",
        payoutId: payout.itemId,
        businessId: payout.businessId,
        reference: payout.reference,
        status: payout.status,
        amount: payout.amount,
        heldAt: payout.startedAt,
        returnedAt: payout.endedAt,
        elapsedMs: payout.lateMs,
        limitMs: deadlines.returnLateMs,
      },
      back
        ? `payout's money came back to the business more than ${hours} hours after its hold (CBN deadline): see the console's Deadlines page`
        : `payout's money is not back ${hours} hours after its hold, and it is not paid (CBN deadline): see the console's Deadlines page`,
    );
  }
  for (const closed of pass.closed) {
    log.info(closed, "an overdue payout's money is back with the business");
  }
  metrics.returnsAtRisk.set(pass.openReturns);
}
