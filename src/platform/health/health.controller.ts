import { Controller, Get, Header, type Type } from '@nestjs/common';
import { UnavailableException } from '#src/platform/http/http-error.filter.js';
import type { ComponentName } from '#src/platform/config/components.js';
import { componentMarker } from '#src/platform/listeners/listener-routing.js';
import { HealthService } from './health.service.js';

/** Body of a passing `/healthz`. */
export interface LiveBody {
  status: 'ok';
}

/** Body of a passing `/readyz`. */
export interface ReadyBody {
  status: 'ready';
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
     * Readiness: 200 `{"status":"ready"}` when the database answers `SELECT 1`; 503
     * `{"message":"Database unreachable"}` when it does not (within 2 s), 503
     * `{"message":"Shutting down"}` once a graceful shutdown has begun (the body written by the
     * exception filter, as every error body).
     * @throws UnavailableException with the reason when not ready.
     */
    @Get('readyz')
    @Header('Cache-Control', 'no-store')
    async ready(): Promise<ReadyBody> {
      const reason = await this.health.notReady();
      if (reason !== null) throw new UnavailableException(reason);
      return { status: 'ready' };
    }
  }
  Object.defineProperty(HealthController, 'name', { value: `HealthController(${component})` });
  return HealthController;
}
