/** Default number of tokens a {@link VerifiedTokenCache} remembers. */
const VERIFIED_TOKENS_CACHED = 10_000;

/** What the cache keeps of a verified token: its claims, of which `exp` (epoch seconds) bounds the entry. */
export interface CachedClaims {
  exp: number;
}

/**
 * Claims of device tokens whose signature has been verified, keyed by the whole token text, so a
 * device that sends the same token again skips the HMAC check and the JSON decoding. Stateless
 * with respect to the database and other instances: the entry is the token's own signed content,
 * and it ends when the token does (`exp`, checked on every hit like the verifier checks it). It
 * holds nothing that can be revoked: the device-key check stays per request, outside the cache.
 * Bounded: when full, the entry cached longest ago is dropped (insertion order).
 */
export class VerifiedTokenCache<C extends CachedClaims> {
  private readonly entries = new Map<string, C>();

  constructor(private readonly capacity = VERIFIED_TOKENS_CACHED) {}

  /** The claims of `token` if it was verified and has not expired at `nowSeconds`; an expired entry is dropped. */
  get(token: string, nowSeconds: number): C | undefined {
    const claims = this.entries.get(token);
    if (claims === undefined) return undefined;
    // The same rule as jsonwebtoken: expired once the clock reaches `exp`.
    if (nowSeconds >= claims.exp) {
      this.entries.delete(token);
      return undefined;
    }
    return claims;
  }

  /** Remembers a verified token's claims (only tokens with a numeric `exp` are cached). */
  set(token: string, claims: C): void {
    if (typeof claims.exp !== 'number' || !Number.isFinite(claims.exp) || this.capacity <= 0) return;
    if (this.entries.size >= this.capacity && !this.entries.has(token)) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(token, claims);
  }

  get size(): number {
    return this.entries.size;
  }
}
