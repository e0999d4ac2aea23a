// Azure Blob Storage and ADLS Gen2 (abfss://, az://) through @azure/storage-blob, read-only, over
// the Blob endpoint (ADLS Gen2 accounts serve the same objects there). Credentials, first that
// applies:
// - AZURE_STORAGE_CONNECTION_STRING (it names the endpoint too: Azurite's development string works);
// - AZURE_STORAGE_SAS_TOKEN with the account (from the location or AZURE_STORAGE_ACCOUNT);
// - AZURE_STORAGE_KEY (an account key) with the account;
// - anonymous access when chosen for the location (a public container);
// - DefaultAzureCredential (@azure/identity: environment, workload identity, managed identity,
//   Azure CLI, ...).
// AZURE_STORAGE_BLOB_ENDPOINT overrides https://<account>.blob.core.windows.net.
import { AnonymousCredential, BlobServiceClient, StorageSharedKeyCredential, type ContainerClient } from '@azure/storage-blob';
import { DefaultAzureCredential } from '@azure/identity';
import { LakerecError } from '../../shared/errors';
import { displayLocation } from '../../shared/location';
import type { ObjectClient, ObjectMeta, RemoteLocation } from './object';
import { remoteError } from './errors';
import { azureProxyOptions } from './proxy';

export interface AzureOptions {
  anonymous?: boolean;
  env?: NodeJS.ProcessEnv;
}

type AzureLocation = Extract<RemoteLocation, { kind: 'azure' }>;

/** The Blob endpoint a connection string names (its proxy is chosen by that host). */
function connectionEndpoint(cs: string): string | null {
  const field = (k: string): string | null => new RegExp(`(?:^|;)\\s*${k}=([^;]+)`, 'i').exec(cs)?.[1].trim() ?? null;
  if (/UseDevelopmentStorage=true/i.test(cs)) return 'http://127.0.0.1:10000';
  const blob = field('BlobEndpoint');
  if (blob) return blob;
  const account = field('AccountName');
  return account ? `${field('DefaultEndpointsProtocol') ?? 'https'}://${account}.blob.${field('EndpointSuffix') ?? 'core.windows.net'}` : null;
}

function connectionAccount(cs: string): string | null {
  const m = /(?:^|;)\s*AccountName=([^;]+)/i.exec(cs);
  return m ? m[1].trim().toLowerCase() : null;
}

/** The service client and the credential source the environment gives (exported for the contract tests). */
export function azureService(loc: AzureLocation, env: NodeJS.ProcessEnv, anonymous: boolean): { service: BlobServiceClient; credentialSource: string } {
  const cs = env.AZURE_STORAGE_CONNECTION_STRING;
  // The pipeline's own proxy policy reads the process's environment; the run's is given here.
  const proxied = (endpoint: string | null): { proxyOptions?: ReturnType<typeof azureProxyOptions> } => {
    const proxyOptions = endpoint ? azureProxyOptions(endpoint, env) : undefined;
    return proxyOptions ? { proxyOptions } : {};
  };
  const account = loc.account ?? (env.AZURE_STORAGE_ACCOUNT ? env.AZURE_STORAGE_ACCOUNT.toLowerCase() : null) ?? (cs ? connectionAccount(cs) : null);
  if (cs && !anonymous) {
    const named = connectionAccount(cs);
    if (loc.account && named && named !== loc.account) {
      throw new LakerecError('usage', `AZURE_STORAGE_CONNECTION_STRING is for the account "${named}", the location names "${loc.account}"`);
    }
    try {
      return { service: BlobServiceClient.fromConnectionString(cs, proxied(connectionEndpoint(cs))), credentialSource: 'AZURE_STORAGE_CONNECTION_STRING' };
    } catch {
      throw new LakerecError('usage', 'AZURE_STORAGE_CONNECTION_STRING could not be read as a connection string');
    }
  }
  if (!account) throw new LakerecError('usage', `${displayLocation(loc)} names no storage account: use abfss://container@account.dfs.core.windows.net/path, or set AZURE_STORAGE_ACCOUNT or AZURE_STORAGE_CONNECTION_STRING`);
  const endpoint = (env.AZURE_STORAGE_BLOB_ENDPOINT || `https://${account}.blob.core.windows.net`).replace(/\/+$/, '');
  const clientOptions = { retryOptions: { maxTries: 4, retryDelayInMs: 200, maxRetryDelayInMs: 4000 }, ...proxied(endpoint) };
  if (anonymous) return { service: new BlobServiceClient(endpoint, new AnonymousCredential(), clientOptions), credentialSource: 'anonymous access, as chosen for this location' };
  if (env.AZURE_STORAGE_SAS_TOKEN) {
    const sas = env.AZURE_STORAGE_SAS_TOKEN.replace(/^\?/, '');
    return { service: new BlobServiceClient(`${endpoint}?${sas}`, new AnonymousCredential(), clientOptions), credentialSource: 'the SAS token in AZURE_STORAGE_SAS_TOKEN' };
  }
  if (env.AZURE_STORAGE_KEY) {
    return { service: new BlobServiceClient(endpoint, new StorageSharedKeyCredential(account, env.AZURE_STORAGE_KEY), clientOptions), credentialSource: 'the account key in AZURE_STORAGE_KEY' };
  }
  return { service: new BlobServiceClient(endpoint, new DefaultAzureCredential(), clientOptions), credentialSource: 'DefaultAzureCredential (environment, workload identity, managed identity, Azure CLI)' };
}

export class AzureObjectClient implements ObjectClient {
  readonly credentialSource: string;
  private readonly container: ContainerClient;
  private readonly shown: string;

  constructor(private readonly location: AzureLocation, opts: AzureOptions = {}) {
    const { service, credentialSource } = azureService(location, opts.env ?? process.env, opts.anonymous === true);
    this.container = service.getContainerClient(location.container);
    this.credentialSource = credentialSource;
    this.shown = displayLocation(location);
  }

  private fail(e: unknown, key: string): never {
    throw remoteError(e, { where: displayLocation({ ...this.location, prefix: '' }, key), table: this.shown, credentialSource: this.credentialSource, container: 'container' });
  }

  async list(prefix: string, startAfter: string | undefined, signal?: AbortSignal): Promise<ObjectMeta[]> {
    const out: ObjectMeta[] = [];
    try {
      // The Blob API's startFrom (inclusive: the key itself is skipped here) lists from that key on.
      for await (const item of this.container.listBlobsByHierarchy('/', { prefix, abortSignal: signal, ...(startAfter !== undefined ? { startFrom: startAfter } : {}) })) {
        if (item.kind === 'prefix') continue;
        if (startAfter !== undefined && item.name <= startAfter) continue;
        out.push({ key: item.name, size: Number(item.properties.contentLength ?? 0), mtimeMs: item.properties.lastModified.getTime(), etag: item.properties.etag ?? null });
      }
    } catch (e) {
      this.fail(e, prefix);
    }
    return out;
  }

  async head(key: string, signal?: AbortSignal): Promise<ObjectMeta | null> {
    try {
      const p = await this.container.getBlobClient(key).getProperties({ abortSignal: signal });
      return { key, size: Number(p.contentLength ?? 0), mtimeMs: p.lastModified ? p.lastModified.getTime() : 0, etag: p.etag ?? null };
    } catch (e) {
      const status = (e as { statusCode?: number }).statusCode;
      const code = (e as { details?: { errorCode?: string } }).details?.errorCode;
      if (status === 404 && code !== 'ContainerNotFound') return null;
      this.fail(e, key);
    }
  }

  async get(key: string, range?: { offset: number; length: number }, signal?: AbortSignal): Promise<Buffer> {
    try {
      const r = await this.container.getBlobClient(key).download(range?.offset ?? 0, range?.length, { abortSignal: signal });
      const body = r.readableStreamBody;
      if (!body) return Buffer.alloc(0);
      const chunks: Buffer[] = [];
      for await (const c of body) chunks.push(Buffer.isBuffer(c) ? c : Buffer.from(c as unknown as Uint8Array));
      return Buffer.concat(chunks);
    } catch (e) {
      this.fail(e, key);
    }
  }
}
