import { eq, sql } from 'drizzle-orm';
import { ALIAS_RE, msg, type SettingsAnswer } from '@vpn/contracts';
import type { Db } from '../../db/client.ts';
import { customers } from '../../db/schema.ts';
import { hashPassword, verifyPassword } from '../../lib/crypto.ts';
import { badRequest, conflict, isUniqueViolation } from '../../lib/errors.ts';
import { checkNewPassword, getCurrentUser, normalizeEmail } from './accounts.ts';
import { consumeEmailToken, issueEmailToken } from './emailTokens.ts';
import { composeMail, type Mailer } from '../site/mailer.ts';
import type { SessionMeta, SessionService } from './sessions.ts';
import { getSiteSettings } from '../site/settings.ts';
import { consume, type RateLimitPolicy } from './rateLimit.ts';

export interface AccountDeps {
  db: Db;
  sessions: SessionService;
  mailer: Mailer;
  companyName: string;
  /** PUBLIC_URL: the only base of a reset link sent by Telegram (never the request's Host). */
  publicUrl: string | undefined;
  rateLimits: RateLimitPolicy;
}

/**
 * The Telegram bot as password recovery uses it (issue 32). Telegram is a later domain, so the
 * route hands it in (`services/telegram`, TelegramService).
 */
export interface RecoveryMessenger {
  /** The chat validly linked to this customer, if any (and the bot is on). */
  recoveryChat(customerId: number): Promise<number | null>;
  /** Sends the reset link to that chat; never throws. */
  sendRecovery(chatId: number, username: string, url: string): Promise<void>;
}

/** Account settings (alias, e-mail, password), e-mail verification and password recovery. */
export class AccountService {
  constructor(private readonly deps: AccountDeps) {}

  private get db() {
    return this.deps.db;
  }

  private async answer(customerId: number, message: string): Promise<SettingsAnswer> {
    return { message, user: await getCurrentUser(this.db, customerId) };
  }

  /**
   * Checks the customer's current password for a sensitive change, counting every attempt against
   * the account's limit (RATE_LIMIT_PASSWORD_CHANGE_PER_ACCOUNT), so a stolen session cannot guess.
   */
  private async confirmPassword(customerId: number, password: string): Promise<void> {
    await consume(this.db, `password:user:${customerId}`, this.deps.rateLimits.passwordChangePerAccount);
    const [me] = await this.db
      .select({ hash: customers.passwordHash })
      .from(customers)
      .where(eq(customers.id, customerId));
    if (!me || !(await verifyPassword(password, me.hash))) throw badRequest(msg.passwordWrong);
  }

  async changeEmail(customerId: number, raw: string, password: string): Promise<SettingsAnswer> {
    const site = await getSiteSettings(this.db);
    if (!site.allow_email) throw badRequest(msg.emailDisabled);
    if (!raw.trim()) throw badRequest(msg.emailBlank);
    const email = normalizeEmail(raw);
    const [me] = await this.db
      .select({ email: customers.email })
      .from(customers)
      .where(eq(customers.id, customerId));
    if (me?.email && me.email.toLowerCase() === email.toLowerCase()) throw badRequest(msg.emailSame);
    if (!password) throw badRequest(msg.emailPasswordRequired);
    await this.confirmPassword(customerId, password);
    try {
      await this.db
        .update(customers)
        .set({ email, emailVerified: false })
        .where(eq(customers.id, customerId));
    } catch (e) {
      if (isUniqueViolation(e)) throw conflict(msg.emailTaken);
      throw e;
    }
    await this.sendVerification(customerId, email);
    return this.answer(customerId, msg.emailChanged);
  }

  async deleteEmail(customerId: number): Promise<SettingsAnswer> {
    const [me] = await this.db
      .select({ email: customers.email })
      .from(customers)
      .where(eq(customers.id, customerId));
    if (!me?.email) throw badRequest(msg.noEmail);
    await this.db
      .update(customers)
      .set({ email: null, emailVerified: false })
      .where(eq(customers.id, customerId));
    return this.answer(customerId, msg.emailDeleted);
  }

  async setAlias(customerId: number, raw: string): Promise<SettingsAnswer> {
    const site = await getSiteSettings(this.db);
    if (!site.allow_partys) throw badRequest(msg.aliasDisabled);
    const alias = raw.trim();
    if (!alias) throw badRequest(msg.aliasBlank);
    if (!ALIAS_RE.test(alias)) throw badRequest(msg.aliasFormat);
    const [me] = await this.db
      .select({ alias: customers.alias })
      .from(customers)
      .where(eq(customers.id, customerId));
    try {
      await this.db.update(customers).set({ alias }).where(eq(customers.id, customerId));
    } catch (e) {
      if (isUniqueViolation(e)) throw conflict(msg.aliasTaken);
      throw e;
    }
    return this.answer(customerId, me?.alias ? msg.aliasChanged : msg.aliasSet);
  }

  /**
   * Changes the password and closes every other session of the customer; this device gets a fresh
   * token pair so it stays signed in (the SPA keeps the refresh token only with remember-me).
   */
  async changePassword(
    customerId: number,
    oldPassword: string,
    newPassword: string,
    meta: SessionMeta,
  ): Promise<SettingsAnswer> {
    if (!oldPassword || !newPassword) throw badRequest(msg.passwordsBlank);
    if (oldPassword === newPassword) throw badRequest(msg.passwordSame);
    await this.confirmPassword(customerId, oldPassword);
    checkNewPassword(newPassword);
    await this.db
      .update(customers)
      .set({ passwordHash: await hashPassword(newPassword) })
      .where(eq(customers.id, customerId));
    await this.deps.sessions.revokeAll({ realm: 'customer', id: customerId });
    const tokens = await this.deps.sessions.issue({ realm: 'customer', id: customerId }, true, meta);
    return { ...(await this.answer(customerId, msg.passwordChanged)), ...tokens };
  }

  /** Mails a verification link (PUBLIC_URL only, see Mailer.link); nothing is issued while mail is off. */
  async sendVerification(customerId: number, email: string): Promise<void> {
    const page = this.deps.mailer.link('/verify-email');
    if (!page) return;
    const token = await issueEmailToken(this.db, customerId, 'verify_email', email);
    // The token travels in the fragment: browsers never send it to servers or write it in logs.
    const url = `${page}#token=${token}`;
    await this.deps.mailer.send(
      composeMail(
        this.deps.companyName,
        email,
        'Verifica tu email',
        [
          'Hola:',
          `Confirma que este email (${email}) es tuyo para poder recuperar tu contraseña si la olvidas.`,
          'El enlace vale 48 horas.',
        ],
        {
          label: 'Verificar email',
          url,
        },
      ),
    );
  }

  async verifyEmail(token: string): Promise<boolean> {
    const spent = await consumeEmailToken(this.db, token, 'verify_email');
    if (!spent) return false;
    // Only if the address is still the one the link was sent to.
    const updated = await this.db
      .update(customers)
      .set({ emailVerified: true })
      .where(
        sql`${customers.id} = ${spent.customerId} and lower(${customers.email}) = lower(${spent.email ?? ''})`,
      )
      .returning({ id: customers.id });
    return updated.length > 0;
  }

  /**
   * Sends a reset link to the verified e-mail of that username (mail on) and to the Telegram chat
   * linked to the account (`telegram`, with PUBLIC_URL): one token, valid 1 hour, once, whichever
   * channel it is opened from. The caller answers the same whether or not anything was sent; the
   * Telegram message goes out after the answer, so its round trip to Telegram tells nothing either.
   */
  async requestRecovery(username: string, telegram?: RecoveryMessenger): Promise<void> {
    const [row] = await this.db
      .select({
        id: customers.id,
        username: customers.username,
        email: customers.email,
        verified: customers.emailVerified,
        active: customers.active,
      })
      .from(customers)
      .where(sql`lower(${customers.username}) = lower(${username.trim()})`);
    if (!row || !row.active) return;
    const byMail = row.email && row.verified ? this.deps.mailer.link('/reset-password') : null;
    const chat = telegram && this.deps.publicUrl ? await telegram.recoveryChat(row.id) : null;
    if (!byMail && chat === null) return;
    const token = await issueEmailToken(this.db, row.id, 'reset_password', byMail ? row.email : null);
    if (chat !== null && telegram)
      void telegram.sendRecovery(chat, row.username, `${this.deps.publicUrl}/reset-password#token=${token}`);
    if (byMail && row.email)
      await this.deps.mailer.send(this.recoveryMail(row.username, row.email, `${byMail}#token=${token}`));
  }

  /**
   * Issues a one-time reset token (voiding earlier ones) and mails its link to `to.email`, which the
   * caller has checked is the customer's verified address. `inTx` runs in the token's transaction
   * (a manager's audit entry). Returns whether the mail went out (false with mail off).
   */
  async sendRecoveryLink(
    to: { id: number; username: string; email: string },
    inTx?: (tx: Db) => Promise<void>,
  ): Promise<boolean> {
    const page = this.deps.mailer.link('/reset-password');
    if (!page) return false;
    const token = await this.db.transaction(async (tx) => {
      const issued = await issueEmailToken(tx, to.id, 'reset_password', to.email);
      await inTx?.(tx);
      return issued;
    });
    return this.deps.mailer.send(this.recoveryMail(to.username, to.email, `${page}#token=${token}`));
  }

  private recoveryMail(username: string, email: string, url: string) {
    return composeMail(
      this.deps.companyName,
      email,
      'Restablecer contraseña',
      [
        'Hola:',
        `Alguien (esperamos que tú) pidió restablecer la contraseña de la cuenta ${username}.`,
        'El enlace vale 1 hora y sirve una sola vez. Si no lo pediste, ignora este mensaje: tu contraseña no cambia.',
      ],
      { label: 'Elegir una contraseña nueva', url },
    );
  }

  /** Sets a new password from a reset link (once), closing every session of the account. */
  async resetPassword(token: string, password: string): Promise<void> {
    if (!password) throw badRequest(msg.passwordsBlank);
    checkNewPassword(password);
    const spent = await consumeEmailToken(this.db, token, 'reset_password');
    if (!spent) throw badRequest(msg.resetInvalid);
    await this.db
      .update(customers)
      .set({ passwordHash: await hashPassword(password) })
      .where(eq(customers.id, spent.customerId));
    await this.deps.sessions.revokeAll({ realm: 'customer', id: spent.customerId });
  }
}
