// One meaning for a remote store's failures, whichever SDK raised them: the status decides the
// code and the words, and nothing of the request (signatures, tokens, SAS queries) is repeated.
import { LakerecError } from '../../shared/errors';

export interface RemoteErrorContext {
  /** The object or prefix, as shown (scheme://bucket/key, no query). */
  where: string;
  /** The table's display location. */
  table: string;
  credentialSource: string;
  /** What the top level is called on this store: bucket or container. */
  container: 'bucket' | 'container';
}

function statusOf(e: unknown): number | null {
  const o = e as { $metadata?: { httpStatusCode?: number }; statusCode?: number; code?: number | string; status?: number };
  const s = o?.$metadata?.httpStatusCode ?? o?.statusCode ?? o?.status ?? (typeof o?.code === 'number' ? o.code : undefined);
  return typeof s === 'number' ? s : null;
}

function nameOf(e: unknown): string {
  const o = e as { name?: string; Code?: string; code?: unknown; errorCode?: string; details?: { errorCode?: string } };
  return String(o?.Code ?? o?.details?.errorCode ?? o?.errorCode ?? (typeof o?.code === 'string' ? o.code : '') ?? o?.name ?? '') || String(o?.name ?? '');
}

/** A LakerecError for a failed remote call (exit 3), naming the credential source on 401/403. */
export function remoteError(e: unknown, ctx: RemoteErrorContext): LakerecError {
  if (e instanceof LakerecError) return e;
  const status = statusOf(e);
  const name = nameOf(e);
  if ((e as Error)?.name === 'AbortError' || name === 'AbortError') return new LakerecError('cancelled', 'cancelled');
  const message = (e as Error)?.message ?? '';
  if (/SSO/.test(message) && ((e as Error)?.name === 'CredentialsProviderError' || (e as Error)?.name === 'TokenProviderError')) {
    // An SSO profile without a live session: the SDK's reason names the profile and no secret.
    // The SDK tries to refresh an expired token; without the registration in the cache it says it cannot.
    const why = /expired|Cannot refresh/i.test(message) ? 'has expired' : /not found|invalid/i.test(message) ? 'has no valid token (never logged in, or the token is invalid)' : 'cannot be used';
    return new LakerecError('source_unreadable', `no credentials for ${ctx.table}: the SSO session of ${ctx.credentialSource} ${why}; log in again with \`aws sso login\` for that profile`);
  }
  if ((e as Error)?.name === 'CredentialsProviderError' || /Could not load credentials|CredentialUnavailable/i.test(message)) {
    return new LakerecError('source_unreadable', `no credentials were found for ${ctx.table}: tried ${ctx.credentialSource}`);
  }
  if (status === 401 || status === 403 || /AccessDenied|InvalidAccessKeyId|SignatureDoesNotMatch|AuthorizationFailure|AuthenticationFailed|NoAuthenticationInformation/i.test(name)) {
    return new LakerecError('source_unreadable',
      `access to ${ctx.where} was refused (${status ?? name}); the credentials tried came from ${ctx.credentialSource}`,
      { status: status ?? null });
  }
  if (/NoSuchBucket|ContainerNotFound/i.test(name)) {
    return new LakerecError('not_found', `the ${ctx.container} of ${ctx.table} does not exist`, { path: ctx.table });
  }
  if (status === 404 || /NoSuchKey|BlobNotFound|NotFound/i.test(name)) {
    return new LakerecError('not_found', `${ctx.where} does not exist`, { path: ctx.where });
  }
  if (status !== null && (status >= 500 || status === 429 || /SlowDown|Throttl/i.test(name))) {
    return new LakerecError('io_error', `${ctx.where} could not be read: the server kept answering ${status}${name && !/^\d+$/.test(name) ? ` ${name}` : ''} after retries with backoff`, { status });
  }
  const sys = (e as { code?: unknown })?.code;
  if (typeof sys === 'string' && /^E[A-Z]+$/.test(sys)) {
    return new LakerecError('io_error', `${ctx.where} could not be read: the connection failed (${sys})`);
  }
  const msg = ((e as Error)?.message ?? String(e)).split('\n')[0].replace(/[?&](sig|sv|se|sp|st|spr|srt|ss|skoid|sktid|X-Amz-[A-Za-z-]+)=[^&\s]*/gi, '').slice(0, 200);
  return new LakerecError('io_error', `${ctx.where} could not be read: ${msg}${status ? ` (HTTP ${status})` : ''}`, status ? { status } : undefined);
}
