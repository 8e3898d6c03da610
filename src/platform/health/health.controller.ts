import { Controller, Get, Header, type Type } from '@nestjs/common';
import { UnavailableException } from '#src/platform/http/http-error.filter.js';
import type { ComponentName } from '#src/platform/config/components.js';
import { componentMarker } from '#src/platform/listeners/listener-routing.js';
import { HealthService, type Degraded } from './health.service.js';

/** Body of a passing `/healthz`. */
export interface LiveBody {
  status: 'ok';
}

/** Body of a passing `/readyz`. */
export interface ReadyBody {
  status: 'ready';
  /** What the process serves without meanwhile (Redis unreachable), when anything. */
  message?: Degraded;
}

/**
 * The health controller of one component: `GET {base_url}/healthz` and `GET {base_url}/readyz`
 * under that component's base URL, on its listener only (like every route, docs/decisions.md §2).
 * One class per component, because Nest mounts a controller class at one path.
 */
export function healthControllerFor(component: ComponentName): Type {
  @Controller(componentMarker(component))
  class HealthController {
    constructor(private readonly health: HealthService) {}

    /** Liveness: 200 `{"status":"ok"}` while the process serves requests; touches nothing else. */
    @Get('healthz')
    @Header('Cache-Control', 'no-store')
    live(): LiveBody {
      return { status: 'ok' };
    }

    /**
     * Readiness: 200 `{"status":"ready"}` when the database answers `SELECT 1`, with
     * `"message":"Redis unreachable, logins use the database"` beside it while Redis (`REDIS_URL`)
     * does not answer; 503 `{"message":"Database unreachable"}` (`"Database and Redis
     * unreachable"`) when the database does not (within 2 s), 503 `{"message":"Shutting down"}`
     * once a graceful shutdown has begun (the body written by the exception filter, as every
     * error body). docs/deployment.md "Outages".
     * @throws UnavailableException with the reason when not ready.
     */
    @Get('readyz')
    @Header('Cache-Control', 'no-store')
    async ready(): Promise<ReadyBody> {
      const readiness = await this.health.readiness();
      if (!readiness.ready) throw new UnavailableException(readiness.reason);
      return readiness.degraded ? { status: 'ready', message: readiness.degraded } : { status: 'ready' };
    }
  }
  Object.defineProperty(HealthController, 'name', { value: `HealthController(${component})` });
  return HealthController;
}
