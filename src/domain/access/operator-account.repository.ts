import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, LessThanOrEqual } from 'typeorm';
import { OperatorSession, OperatorUser } from './operator-user.entity.js';

/** A session with the account it belongs to, as one read finds them. */
export interface SessionWithUser {
  session: OperatorSession;
  user: OperatorUser;
}

/** Database access for operator accounts and their console sessions. */
@Injectable()
export class OperatorAccountRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Inserts an account; a taken username is a unique violation. */
  insertUser(manager: EntityManager, user: Omit<OperatorUser, 'id'>): Promise<OperatorUser> {
    return manager.save(OperatorUser, manager.create(OperatorUser, user));
  }

  findUser(username: string): Promise<OperatorUser | null> {
    return this.dataSource.getRepository(OperatorUser).findOneBy({ username });
  }

  listUsers(): Promise<OperatorUser[]> {
    return this.dataSource.getRepository(OperatorUser).find({ order: { id: 'ASC' } });
  }

  async updateUser(manager: EntityManager, id: number, change: Partial<Pick<OperatorUser, 'passwordHash' | 'disabledAt'>>): Promise<void> {
    await manager.update(OperatorUser, { id }, change);
  }

  async insertSession(manager: EntityManager, session: OperatorSession): Promise<void> {
    await manager.insert(OperatorSession, session);
  }

  /** The session with this id (the token's digest) and its account, in one read; `null` when there is none. */
  async findSession(id: string): Promise<SessionWithUser | null> {
    const session = await this.dataSource.getRepository(OperatorSession).findOneBy({ id });
    if (!session) return null;
    const user = await this.dataSource.getRepository(OperatorUser).findOneBy({ id: session.userId });
    return user ? { session, user } : null;
  }

  async touchSession(manager: EntityManager, id: string, at: number): Promise<void> {
    await manager.update(OperatorSession, { id }, { lastSeenAt: at });
  }

  async deleteSession(manager: EntityManager, id: string): Promise<void> {
    await manager.delete(OperatorSession, { id });
  }

  /** Ends every session of an account. */
  async deleteSessionsOf(manager: EntityManager, userId: number): Promise<void> {
    await manager.delete(OperatorSession, { userId });
  }

  /** Drops sessions that ended by themselves: past their absolute end, or idle since `idleBefore` (epoch ms). */
  async deleteEnded(manager: EntityManager, now: number, idleBefore: number): Promise<void> {
    await manager.delete(OperatorSession, { expiresAt: LessThanOrEqual(now) });
    await manager.delete(OperatorSession, { lastSeenAt: LessThanOrEqual(idleBefore) });
  }
}
