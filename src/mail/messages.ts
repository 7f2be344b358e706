import { lagosDate, lagosTimeOfDay } from "../core/lagos-time.js";
import { formatNaira } from "../ledger/kobo.js";
import type { MailContent } from "./mailer.js";

// The service's mails (issue 28), each in plain text and HTML built from the same parts: no
// remote images, no scripts, nothing a mail client fetches; every link starts with PUBLIC_URL.
// What a person sees first is what happened; then what to do, with one link.

/** HTML's five special characters, escaped. */
const escapeHtml = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] ?? c,
  );

interface Parts {
  subject: string;
  /** Paragraphs, plain text. */
  lines: string[];
  action?: { label: string; url: string };
  /** The last paragraph: why they got this mail. */
  footer: string;
}

/** A mail from its parts: the text, and the same in simple inline-styled HTML. */
export function compose({ subject, lines, action, footer }: Parts): MailContent {
  const text = [...lines, ...(action ? [`${action.label}: ${action.url}`] : []), "--", footer].join("\n\n");
  const paragraph = (line: string) =>
    `<p style="margin:0 0 16px">${escapeHtml(line).replaceAll("\n", "<br>")}</p>`;
  const html = [
    "<!doctype html>",
    '<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">',
    `<title>${escapeHtml(subject)}</title></head>`,
    '<body style="margin:0;padding:24px;background:#f4f6f8;font-family:Arial,Helvetica,sans-serif;color:#14213d">',
    '<div style="max-width:560px;margin:0 auto;background:#ffffff;border-radius:8px;padding:24px">',
    '<p style="margin:0 0 24px;font-weight:bold">Virtual Account Service</p>',
    ...lines.map(paragraph),
    action
      ? `<p style="margin:24px 0"><a href="${escapeHtml(action.url)}" style="background:#0b5d4b;color:#ffffff;padding:12px 20px;border-radius:6px;text-decoration:none;font-weight:bold">${escapeHtml(action.label)}</a></p>` +
        `<p style="margin:0 0 16px;font-size:13px;color:#4a5568">Or open this address: ${escapeHtml(action.url)}</p>`
      : "",
    `<p style="margin:24px 0 0;font-size:13px;color:#4a5568">${escapeHtml(footer)}</p>`,
    "</div></body></html>",
  ].join("\n");
  return { subject, text, html };
}

/** An instant as a person in Lagos reads it, the zone named, and in UTC. */
export const lagosTime = (iso: string) => {
  const at = Date.parse(iso);
  return `${lagosDate(at)} ${lagosTimeOfDay(at)} WAT (${iso.slice(0, 16).replace("T", " ")} UTC)`;
};

/** An account number with all but its last four digits hidden. */
const masked = (accountNumber: string) => `******${accountNumber.slice(-4)}`;

const ABOUT_BUSINESS = (business: string) =>
  `You get this mail because you are a member of ${business} on the Virtual Account Service.`;

/** What a payout's mail says of it. */
interface PayoutMail {
  business: string;
  payoutId: string;
  amount: number;
  accountName: string;
  bankName: string;
  /** The bank's words: why it failed or came back. */
  reason: string | null;
  refund: boolean;
  publicUrl: string;
}

export const MESSAGES = {
  verificationApproved: (p: { business: string; publicUrl: string }) =>
    compose({
      subject: `${p.business} is verified`,
      lines: [
        `Good news: ${p.business} is verified.`,
        "You can now create API keys, issue accounts to your customers and receive payments.",
      ],
      action: { label: "Open the dashboard", url: `${p.publicUrl}/dashboard/home` },
      footer: ABOUT_BUSINESS(p.business),
    }),
  verificationRejected: (p: { business: string; reason: string; publicUrl: string }) =>
    compose({
      subject: `${p.business}: your details need a change`,
      lines: [
        `We could not verify ${p.business} yet. The reviewer said:`,
        p.reason,
        "Correct your details and submit them again; they are reviewed again as soon as you do.",
      ],
      action: { label: "Correct your details", url: `${p.publicUrl}/dashboard/verification` },
      footer: ABOUT_BUSINESS(p.business),
    }),
  newDevice: (p: { email: string; at: string; address: string; device: string; publicUrl: string }) =>
    compose({
      subject: "A new sign-in to your account",
      lines: [
        `Someone signed in to ${p.email} from a browser that had not signed in before.`,
        `When: ${lagosTime(p.at)}\nFrom: ${p.address}\nBrowser: ${p.device}`,
        "If this was you, there is nothing to do. If it was not, change your password now: every other session ends when you do. Then turn on two-factor sign-in.",
      ],
      action: { label: "Change your password", url: `${p.publicUrl}/dashboard/security` },
      footer: `You get this mail because someone signed in as ${p.email}.`,
    }),
  ownershipTransferred: (p: { business: string; from: string; to: string; publicUrl: string }) =>
    compose({
      subject: `${p.business} was handed over to ${p.to}`,
      lines: [
        `${p.from} handed ${p.business} over to ${p.to}, with their password and a code from their authenticator. ${p.to} is the owner now; ${p.from} is an admin.`,
        "If neither of you did this, sign in at once, look at the Team page and the recent activity under Sign-in and security, and tell us.",
      ],
      action: { label: "Review your team", url: `${p.publicUrl}/dashboard/team` },
      footer: `You get this mail as the owner of ${p.business}, before or after the hand-over.`,
    }),
  secondFactorChanged: (p: {
    business: string;
    member: string;
    change: "enrolled" | "disabled" | "reset";
    coolOffHours: number;
    publicUrl: string;
  }) =>
    compose({
      subject: `${p.business}: ${p.member}'s two-factor sign-in was ${{ enrolled: "set up", disabled: "turned off", reset: "reset by an operator" }[p.change]}`,
      lines: [
        p.change === "enrolled"
          ? `${p.member} set up an authenticator app for two-factor sign-in at ${p.business}.${p.coolOffHours > 0 ? ` It moves no money for ${p.coolOffHours} hour${p.coolOffHours === 1 ? "" : "s"}.` : ""}`
          : p.change === "disabled"
            ? `${p.member} turned two-factor sign-in off at ${p.business}, with their password and a code from their app. They move no money until they set an authenticator up again.`
            : `An operator reset ${p.member}'s two-factor sign-in at ${p.business}, as asked when their phone and recovery codes were lost. They move no money until they set an authenticator up again.`,
        "If you do not recognise this, sign in, look at the Team page and the recent activity under Sign-in and security, and remove the member or change their role.",
      ],
      action: { label: "Review your team", url: `${p.publicUrl}/dashboard/team` },
      footer: `You get this mail as the owner of ${p.business}: every change of a member's second factor is told to you.`,
    }),
  settlementAccountChanged: (p: {
    business: string;
    accountName: string;
    bankName: string;
    accountNumber: string;
    usableFrom: string;
    publicUrl: string;
  }) =>
    compose({
      subject: `${p.business}: the settlement account was changed`,
      lines: [
        `The account ${p.business}'s settlements are paid to was changed to ${p.accountName}, ${p.bankName} ${masked(p.accountNumber)}.`,
        `No settlement goes to it before ${lagosTime(p.usableFrom)}.`,
        "If nobody at your business made this change, sign in and set your account back, change your password, and tell us: a settlement account is where your money goes.",
      ],
      action: { label: "Review your settlements", url: `${p.publicUrl}/dashboard/settlements` },
      footer: ABOUT_BUSINESS(p.business),
    }),
  payoutFailed: (p: PayoutMail) =>
    compose({
      subject: `${p.business}: a ${p.refund ? "refund" : "payout"} of ${formatNaira(p.amount)} failed`,
      lines: [
        `The ${p.refund ? "refund" : "payout"} of ${formatNaira(p.amount)} to ${p.accountName} at ${p.bankName} failed${p.reason ? `: ${p.reason}` : "."}`,
        "Its amount and fee are back in your available balance. Check the account details and send it again.",
      ],
      action: { label: "See the payout", url: `${p.publicUrl}/dashboard/payouts/${p.payoutId}` },
      footer: ABOUT_BUSINESS(p.business),
    }),
  payoutReturned: (p: PayoutMail) =>
    compose({
      subject: `${p.business}: a ${p.refund ? "refund" : "payout"} of ${formatNaira(p.amount)} came back`,
      lines: [
        `The ${p.refund ? "refund" : "payout"} of ${formatNaira(p.amount)} to ${p.accountName} at ${p.bankName} was paid, then sent back by the receiving bank${p.reason ? `: ${p.reason}` : "."}`,
        "Its amount is back in your available balance; the fee is not returned, as the transfer was made. Check the account with its owner before sending it again.",
      ],
      action: { label: "See the payout", url: `${p.publicUrl}/dashboard/payouts/${p.payoutId}` },
      footer: ABOUT_BUSINESS(p.business),
    }),
  twoFactorReset: (p: { email: string; publicUrl: string }) =>
    compose({
      subject: "Two-factor sign-in was turned off for your account",
      lines: [
        `An operator turned two-factor sign-in off for ${p.email}, as asked when the phone and the recovery codes were lost. Every session of the account has ended.`,
        "Sign in with your password, then turn two-factor sign-in on again from Sign-in and security, and keep the new recovery codes somewhere safe.",
        "If you did not ask for this, change your password at once and tell us.",
      ],
      action: { label: "Sign in", url: `${p.publicUrl}/dashboard/login` },
      footer: `You get this mail because two-factor sign-in was reset for ${p.email}.`,
    }),
  passwordReset: (p: { email: string; link: string; minutes: number }) =>
    compose({
      subject: "Reset your password",
      lines: [
        `Someone asked to reset the password of ${p.email}. If it was you, choose a new password with the link below: it works once, for ${p.minutes} minutes, and signs you out everywhere.`,
        "If it was not you, ignore this mail: your password stays as it is.",
      ],
      action: { label: "Choose a new password", url: p.link },
      footer: `You get this mail because a password reset was asked for ${p.email}.`,
    }),
  signUpConfirmation: (p: { email: string; business: string; link: string; hours: number }) =>
    compose({
      subject: "Confirm your email to create your account",
      lines: [
        `Someone signed up ${p.business} to the Virtual Account Service with ${p.email}. If it was you, confirm this address: the account is made, and you are signed in, when you do.`,
        `The link works once, for ${p.hours} hours. If it was not you, ignore this mail: nothing is made without it.`,
      ],
      action: { label: "Confirm my email", url: p.link },
      footer: `You get this mail because ${p.email} was used to sign up.`,
    }),
  signUpTaken: (p: { email: string; publicUrl: string }) =>
    compose({
      subject: "Someone tried to sign up with your email",
      lines: [
        `Someone tried to create a new account with ${p.email}, which already has one. Nothing was changed.`,
        `If it was you, sign in instead; if you forgot your password, reset it: ${p.publicUrl}/dashboard/forgot`,
        "If it was not you, there is nothing to do.",
      ],
      action: { label: "Sign in", url: `${p.publicUrl}/dashboard/login` },
      footer: `You get this mail because ${p.email} was used to sign up.`,
    }),
  invitation: (p: {
    email: string;
    business: string;
    role: string;
    invitedBy: string;
    link: string;
    days: number;
  }) =>
    compose({
      subject: `Join ${p.business} on the Virtual Account Service`,
      lines: [
        `${p.invitedBy} invited ${p.email} to join ${p.business}'s team as ${p.role}.`,
        `Accept with the link below and choose your password. It works once, for ${p.days} days. If you did not expect this, ignore this mail.`,
      ],
      action: { label: "Accept the invitation", url: p.link },
      footer: `You get this mail because someone at ${p.business} invited ${p.email}.`,
    }),
  operatorInvitation: (p: { email: string; role: string; invitedBy: string; link: string; days: number }) =>
    compose({
      subject: "You are invited to the Virtual Account Service's console",
      lines: [
        `${p.invitedBy} invited ${p.email} to operate the Virtual Account Service as ${p.role}.`,
        `Choose your password with the link below. It works once, for ${p.days} days. If you did not expect this, ignore this mail.`,
      ],
      action: { label: "Choose your password", url: p.link },
      footer: `You get this mail because an operator invited ${p.email}.`,
    }),
} as const;
