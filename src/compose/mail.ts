import type { BusinessService } from "../businesses/business-service.js";
import type { SecretBox } from "../businesses/secret-box.js";
import type { Clock } from "../clock.js";
import type { Config } from "../config/load.js";
import type { Metrics } from "../http/metrics.js";
import { Mailer } from "../mail/mailer.js";
import { MailNotices } from "../mail/notices.js";
import type { PayoutService } from "../payouts/payout-service.js";
import type { SettlementTermsService } from "../payouts/settlement-terms.js";
import { fileTransport, type MailTransport, smtpTransport } from "../providers/mail-transport.js";
import type { Storage } from "../storage/database.js";

// Mail, wired (issue 28): the transport the configuration names (SMTP, or .eml files in
// DATA_DIR/mail without SMTP_URL), the outbox, and what is mailed when.

export function openMail(config: Config, storage: Storage, box: SecretBox, now: Clock, metrics: Metrics) {
  const { mail } = config;
  const transport: MailTransport =
    mail.transport.kind === "smtp"
      ? smtpTransport(mail.transport.url, mail.from, mail.transport.timeouts)
      : fileTransport(mail.transport.dir, mail.from);
  const mailer = new Mailer({
    storage,
    box,
    transport,
    now,
    onAttempt: (outcome) => metrics.mailAttempts.inc({ outcome }),
  });
  // Mail waiting, on each scrape: a mail server down shows here, not in /health/ready (mail is
  // never on a request's path).
  metrics.readMailWaiting = () => mailer.waiting();
  const notices = new MailNotices({
    storage,
    mailer,
    publicUrl: mail.publicUrl,
    moneyCoolOffHours: config.dashboard.moneyCoolOffHours,
  });
  return { mailer, notices, transport };
}

/** What is mailed when: each domain service tells the notices after its change is committed. */
export function mailOnChanges(
  notices: MailNotices,
  services: { businesses: BusinessService; payouts: PayoutService; settlementTerms: SettlementTermsService },
): void {
  services.businesses.onVerificationChange((businessId, change) =>
    notices.verificationDecided(businessId, change),
  );
  services.payouts.onMoved((businessId, payout) => notices.payoutMoved(businessId, payout));
  services.settlementTerms.onAccountChanged((businessId, terms) =>
    notices.settlementAccountChanged(businessId, terms),
  );
}
