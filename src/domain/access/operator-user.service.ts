import { BadRequestException, ConflictException, Injectable, Logger, NotFoundException } from '@nestjs/common';
import { Clock } from '#src/platform/common/clock.js';
import { isUniqueViolation } from '#src/platform/common/unique-violation.js';
import { UnitOfWork } from '#src/platform/database/unit-of-work.js';
import { OperatorAccountRepository } from './operator-account.repository.js';
import { isOperatorRole, OPERATOR_ROLES, type OperatorRole } from './operator-role.js';
import type { OperatorUser } from './operator-user.entity.js';
import { hashPassword, passwordProblem } from './password.js';

/** 400 text of a username outside the rule. */
export const USERNAME_RULE = 'username must be 1 to 64 of the characters A-Z a-z 0-9 . _ @ -';
const USERNAME = /^[A-Za-z0-9._@-]{1,64}$/;

/** Whether `text` follows the username rule ({@link USERNAME_RULE}): only such names can name an account. */
export function isUsername(text: string): boolean {
  return USERNAME.test(text);
}

/** 404 text of an unknown account. */
export const operatorUserNotFound = (username: string): string => `Operator user "${username}" not found`;

/** An operator account as listed: never its password hash. */
export interface OperatorUserView {
  id: number;
  username: string;
  role: OperatorRole;
  disabled: boolean;
  /** ISO 8601, UTC. */
  createdAt: string;
}

/**
 * Operator accounts of the console, managed with `firmledger operator-user …` on the server.
 * Passwords are stored as Argon2id hashes only. Disabling an account or changing its password
 * ends its sessions at once.
 */
@Injectable()
export class OperatorUserService {
  private readonly logger = new Logger('OperatorAccounts');

  constructor(
    private readonly accounts: OperatorAccountRepository,
    private readonly unitOfWork: UnitOfWork,
    private readonly clock: Clock,
  ) {}

  /**
   * Creates an account.
   * @throws BadRequestException for a bad username, role or password; ConflictException when the username is taken.
   */
  async create(username: string, password: string, role: string): Promise<OperatorUserView> {
    if (!isUsername(username)) throw new BadRequestException(USERNAME_RULE);
    if (!isOperatorRole(role)) throw new BadRequestException(`role must be one of ${OPERATOR_ROLES.join(', ')}`);
    const problem = passwordProblem(password);
    if (problem) throw new BadRequestException(problem);
    const passwordHash = await hashPassword(password);
    try {
      const user = await this.unitOfWork.transaction((manager) =>
        this.accounts.insertUser(manager, { username, passwordHash, role, disabledAt: null, createdAt: this.clock.now() }),
      );
      this.logger.log(`operator user "${username}" created with role ${role}`);
      return userView(user);
    } catch (error) {
      if (isUniqueViolation(error)) throw new ConflictException(`Operator user "${username}" exists`);
      throw error;
    }
  }

  async list(): Promise<OperatorUserView[]> {
    return (await this.accounts.listUsers()).map(userView);
  }

  /**
   * Disables an account: it cannot sign in, and its sessions end at once. Disabling twice is a no-op.
   * @throws NotFoundException for an unknown username.
   */
  async disable(username: string): Promise<OperatorUserView> {
    const user = await this.require(username);
    const disabledAt = user.disabledAt ?? this.clock.now();
    await this.unitOfWork.transaction(async (manager) => {
      await this.accounts.updateUser(manager, user.id, { disabledAt });
      await this.accounts.deleteSessionsOf(manager, user.id);
    });
    this.logger.log(`operator user "${username}" disabled; its sessions ended`);
    return userView({ ...user, disabledAt });
  }

  /**
   * Sets a new password; every session of the account ends (sign in again with the new one).
   * @throws BadRequestException for a password outside the bounds; NotFoundException for an unknown username.
   */
  async setPassword(username: string, password: string): Promise<OperatorUserView> {
    const problem = passwordProblem(password);
    if (problem) throw new BadRequestException(problem);
    const user = await this.require(username);
    const passwordHash = await hashPassword(password);
    await this.unitOfWork.transaction(async (manager) => {
      await this.accounts.updateUser(manager, user.id, { passwordHash });
      await this.accounts.deleteSessionsOf(manager, user.id);
    });
    this.logger.log(`operator user "${username}" has a new password; its sessions ended`);
    return userView(user);
  }

  /** The account named `username`; a name outside the rule names none (and is never sent to the database). */
  private async require(username: string): Promise<OperatorUser> {
    const user = isUsername(username) ? await this.accounts.findUser(username) : null;
    if (!user) throw new NotFoundException(operatorUserNotFound(username));
    return user;
  }
}

function userView(user: OperatorUser): OperatorUserView {
  return {
    id: user.id,
    username: user.username,
    role: user.role,
    disabled: user.disabledAt !== null,
    createdAt: new Date(user.createdAt).toISOString(),
  };
}
