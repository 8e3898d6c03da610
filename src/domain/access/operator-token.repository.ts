import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { OperatorToken } from './operator-token.entity.js';

/** Database access for operator tokens. */
@Injectable()
export class OperatorTokenRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  insert(manager: EntityManager, token: Omit<OperatorToken, 'id'>): Promise<OperatorToken> {
    return manager.save(OperatorToken, manager.create(OperatorToken, token));
  }

  list(): Promise<OperatorToken[]> {
    return this.dataSource.getRepository(OperatorToken).find({ order: { id: 'ASC' } });
  }

  find(id: number): Promise<OperatorToken | null> {
    return this.dataSource.getRepository(OperatorToken).findOneBy({ id });
  }

  findByHash(tokenHash: string): Promise<OperatorToken | null> {
    return this.dataSource.getRepository(OperatorToken).findOneBy({ tokenHash });
  }

  async revoke(manager: EntityManager, id: number, at: number): Promise<void> {
    await manager.update(OperatorToken, { id }, { revokedAt: at });
  }
}
