// S3 (and S3-compatible stores: MinIO, R2, Ceph, s3rver) through @aws-sdk/client-s3, read-only.
// - credentials: the SDK's standard Node chain (environment, shared config and profiles incl.
//   AWS_PROFILE and SSO, web identity, container and instance metadata), the metadata probe with a
//   short timeout and no retry so an open off the cloud does not stall; or unsigned requests when
//   the caller chose anonymous access for this location;
// - endpoint: AWS_ENDPOINT_URL_S3, else AWS_ENDPOINT_URL; path-style addressing when the endpoint
//   is an IP address or localhost (or AWS_S3_FORCE_PATH_STYLE=true);
// - region: AWS_REGION / AWS_DEFAULT_REGION / the profile's; us-east-1 when none is set, with
//   redirects to the bucket's own region followed;
// - retries: the SDK's standard mode (exponential backoff with jitter on 5xx, 429, SlowDown and
//   connection resets), LAKEREC_S3_MAX_ATTEMPTS attempts (default 4), then a clear error.
import { GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, S3Client, type S3ClientConfig } from '@aws-sdk/client-s3';
import { fromNodeProviderChain } from '@aws-sdk/credential-providers';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { LakerecError } from '../../shared/errors';
import { displayLocation } from '../../shared/location';
import type { ObjectClient, ObjectMeta, RemoteLocation } from './object';
import { remoteError } from './errors';
import { proxyAgents } from './proxy';

export interface S3Options {
  /** Unsigned requests (a public bucket): an explicit choice per location, never a fallback. */
  anonymous?: boolean;
  env?: NodeJS.ProcessEnv;
}

const isLoopbackOrIp = (host: string): boolean =>
  host === 'localhost' || host.endsWith('.localhost') || /^\d{1,3}(\.\d{1,3}){3}$/.test(host) || host.startsWith('[');

/**
 * The shared config and credentials files the run's environment names (AWS_CONFIG_FILE,
 * AWS_SHARED_CREDENTIALS_FILE, else under its HOME), given to the chain explicitly so a profile is
 * read from the environment the CLI was given. (The SDK still finds an SSO token cache under the
 * process's home folder: it takes no path for it.)
 */
function sharedFiles(env: NodeJS.ProcessEnv): { configFilepath?: string; filepath?: string } {
  const home = env.HOME || env.USERPROFILE;
  const configFilepath = env.AWS_CONFIG_FILE || (home ? join(home, '.aws', 'config') : undefined);
  const filepath = env.AWS_SHARED_CREDENTIALS_FILE || (home ? join(home, '.aws', 'credentials') : undefined);
  return { ...(configFilepath ? { configFilepath } : {}), ...(filepath ? { filepath } : {}) };
}

/** The client settings the environment gives (exported for the contract tests). */
export function s3Config(env: NodeJS.ProcessEnv, anonymous: boolean): { config: S3ClientConfig; credentialSource: string; endpoint: string | null } {
  const endpoint = env.AWS_ENDPOINT_URL_S3 || env.AWS_ENDPOINT_URL || null;
  let pathStyle = env.AWS_S3_FORCE_PATH_STYLE === 'true';
  if (endpoint) {
    let host: string;
    try {
      host = new URL(endpoint).hostname;
    } catch {
      throw new LakerecError('usage', `AWS_ENDPOINT_URL${env.AWS_ENDPOINT_URL_S3 ? '_S3' : ''} is not a URL`);
    }
    if (isLoopbackOrIp(host)) pathStyle = true;
  }
  const region = env.AWS_REGION || env.AWS_DEFAULT_REGION || undefined;
  const attempts = Number(env.LAKEREC_S3_MAX_ATTEMPTS);
  const config: S3ClientConfig = {
    region: region ?? (endpoint ? 'us-east-1' : undefined),
    endpoint: endpoint ?? undefined,
    forcePathStyle: pathStyle,
    followRegionRedirects: true,
    maxAttempts: Number.isInteger(attempts) && attempts > 0 ? attempts : 4,
    retryMode: 'standard',
  };
  // The AWS SDK reads no proxy setting itself: tunnelling agents when the environment sets one
  // (or a CA bundle is given).
  // AWS_CA_BUNDLE: PEM certificates trusted beside Node's own (a store behind a private CA).
  let ca: string | undefined;
  if (env.AWS_CA_BUNDLE) {
    try {
      ca = readFileSync(env.AWS_CA_BUNDLE, 'utf8');
    } catch (e) {
      throw new LakerecError('usage', `AWS_CA_BUNDLE (${env.AWS_CA_BUNDLE}) could not be read (${(e as NodeJS.ErrnoException).code ?? 'error'})`);
    }
    if (!ca.includes('-----BEGIN CERTIFICATE-----')) throw new LakerecError('usage', `AWS_CA_BUNDLE (${env.AWS_CA_BUNDLE}) holds no PEM certificate`);
  }
  const agents = proxyAgents(env, ca);
  if (agents) config.requestHandler = { ...agents, connectionTimeout: 10_000 };
  let credentialSource: string;
  if (anonymous) {
    // Unsigned: the request goes out as built, with no Authorization header.
    config.signer = { sign: async (request) => request };
    config.credentials = { accessKeyId: '', secretAccessKey: '' };
    credentialSource = 'anonymous access (unsigned requests), as chosen for this location';
  } else {
    // Keys in the given environment are used as they are (the CLI's and the tests' environment);
    // otherwise the SDK's chain, which reads the process's environment, profiles and metadata.
    config.credentials = env.AWS_ACCESS_KEY_ID && env.AWS_SECRET_ACCESS_KEY
      ? { accessKeyId: env.AWS_ACCESS_KEY_ID, secretAccessKey: env.AWS_SECRET_ACCESS_KEY, sessionToken: env.AWS_SESSION_TOKEN }
      : fromNodeProviderChain({ timeout: 1000, maxRetries: 0, ...sharedFiles(env), ...(env.AWS_PROFILE ? { profile: env.AWS_PROFILE } : {}) });
    credentialSource = env.AWS_ACCESS_KEY_ID ? 'the environment (AWS_ACCESS_KEY_ID)'
      : env.AWS_PROFILE ? `the profile "${env.AWS_PROFILE}" (AWS_PROFILE)`
        : env.AWS_WEB_IDENTITY_TOKEN_FILE ? 'web identity (AWS_WEB_IDENTITY_TOKEN_FILE)'
          : 'the default AWS credential chain (environment, shared config and profiles, SSO, web identity, instance metadata)';
  }
  return { config, credentialSource, endpoint };
}

// The SDK warns on stderr, once, that releases after January 2027 need Node 22: a CLI's stderr is
// its one error line, so the SDK's own switch turns the notice off (docs/storage.md says so).
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

export class S3ObjectClient implements ObjectClient {
  readonly credentialSource: string;
  private readonly s3: S3Client;
  private readonly shown: string;

  constructor(private readonly location: Extract<RemoteLocation, { kind: 's3' }>, opts: S3Options = {}) {
    const { config, credentialSource } = s3Config(opts.env ?? process.env, opts.anonymous === true);
    this.s3 = new S3Client(config);
    this.credentialSource = credentialSource;
    this.shown = displayLocation(location);
  }

  private fail(e: unknown, key: string): never {
    throw remoteError(e, { where: `s3://${this.location.bucket}/${key}`, table: this.shown, credentialSource: this.credentialSource, container: 'bucket' });
  }

  async list(prefix: string, startAfter: string | undefined, signal?: AbortSignal): Promise<ObjectMeta[]> {
    const out: ObjectMeta[] = [];
    let token: string | undefined;
    do {
      let r;
      try {
        r = await this.s3.send(new ListObjectsV2Command({
          Bucket: this.location.bucket, Prefix: prefix, Delimiter: '/', ContinuationToken: token, StartAfter: token ? undefined : startAfter,
        }), { abortSignal: signal });
      } catch (e) {
        this.fail(e, prefix);
      }
      for (const o of r.Contents ?? []) {
        if (!o.Key || o.Key.endsWith('/')) continue;
        out.push({ key: o.Key, size: Number(o.Size ?? 0), mtimeMs: o.LastModified ? o.LastModified.getTime() : 0, etag: o.ETag ?? null });
      }
      token = r.IsTruncated ? r.NextContinuationToken : undefined;
    } while (token);
    return out;
  }

  async head(key: string, signal?: AbortSignal): Promise<ObjectMeta | null> {
    try {
      const r = await this.s3.send(new HeadObjectCommand({ Bucket: this.location.bucket, Key: key }), { abortSignal: signal });
      return { key, size: Number(r.ContentLength ?? 0), mtimeMs: r.LastModified ? r.LastModified.getTime() : 0, etag: r.ETag ?? null };
    } catch (e) {
      const status = (e as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
      if (status === 404 || (e as Error).name === 'NotFound') return null;
      this.fail(e, key);
    }
  }

  async get(key: string, range?: { offset: number; length: number }, signal?: AbortSignal): Promise<Buffer> {
    try {
      const r = await this.s3.send(new GetObjectCommand({
        Bucket: this.location.bucket, Key: key, Range: range ? `bytes=${range.offset}-${range.offset + range.length - 1}` : undefined,
      }), { abortSignal: signal });
      if (!r.Body) return Buffer.alloc(0);
      return Buffer.from(await r.Body.transformToByteArray());
    } catch (e) {
      this.fail(e, key);
    }
  }
}

