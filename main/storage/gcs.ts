// Google Cloud Storage (gs://) through @google-cloud/storage, read-only: application default
// credentials (GOOGLE_APPLICATION_CREDENTIALS, gcloud's ADC file, the metadata server), and
// STORAGE_EMULATOR_HOST (read by the library itself) for an emulator. No GCS emulator runs on this
// machine: this client is written to the same ObjectClient contract and covered by contract tests
// only (storage/gcs.test.ts); it has not been run against a server.
import { Storage as GcsStorage, type Bucket } from '@google-cloud/storage';
import { LakerecError } from '../../shared/errors';
import { displayLocation } from '../../shared/location';
import type { ObjectClient, ObjectMeta, RemoteLocation } from './object';
import { remoteError } from './errors';

type GcsLocation = Extract<RemoteLocation, { kind: 'gcs' }>;

interface GcsFileMeta { size?: string | number; updated?: string; etag?: string }

const metaOf = (key: string, m: GcsFileMeta): ObjectMeta => ({
  key, size: Number(m.size ?? 0), mtimeMs: m.updated ? Date.parse(m.updated) : 0, etag: m.etag ?? null,
});

export class GcsObjectClient implements ObjectClient {
  readonly credentialSource: string;
  private readonly bucket: Bucket;

  constructor(private readonly location: GcsLocation, opts: { env?: NodeJS.ProcessEnv; anonymous?: boolean } = {}) {
    const env = opts.env ?? process.env;
    if (opts.anonymous) {
      throw new LakerecError('usage', `--anonymous is not available for gs:// locations in this build (${displayLocation(location)}): the GCS client is not run against a server here`);
    }
    // The run's environment names the key file and the emulator explicitly (the library would
    // otherwise read them from the process's environment).
    this.bucket = new GcsStorage({
      retryOptions: { autoRetry: true, maxRetries: 3 },
      ...(env.GOOGLE_APPLICATION_CREDENTIALS ? { keyFilename: env.GOOGLE_APPLICATION_CREDENTIALS } : {}),
      ...(env.STORAGE_EMULATOR_HOST ? { apiEndpoint: env.STORAGE_EMULATOR_HOST } : {}),
      ...(env.GOOGLE_CLOUD_PROJECT ? { projectId: env.GOOGLE_CLOUD_PROJECT } : {}),
    }).bucket(location.bucket);
    this.credentialSource = env.STORAGE_EMULATOR_HOST ? `the emulator at STORAGE_EMULATOR_HOST`
      : env.GOOGLE_APPLICATION_CREDENTIALS ? 'the key file in GOOGLE_APPLICATION_CREDENTIALS'
        : 'application default credentials (gcloud ADC file, metadata server)';
  }

  private fail(e: unknown, key: string): never {
    throw remoteError(e, { where: `gs://${this.location.bucket}/${key}`, table: displayLocation(this.location), credentialSource: this.credentialSource, container: 'bucket' });
  }

  async list(prefix: string, startAfter: string | undefined): Promise<ObjectMeta[]> {
    try {
      const [files] = await this.bucket.getFiles({ prefix, delimiter: '/', autoPaginate: true, startOffset: startAfter });
      return files.filter((f) => startAfter === undefined || f.name > startAfter).map((f) => metaOf(f.name, f.metadata as GcsFileMeta));
    } catch (e) {
      this.fail(e, prefix);
    }
  }

  async head(key: string): Promise<ObjectMeta | null> {
    try {
      const [m] = await this.bucket.file(key).getMetadata();
      return metaOf(key, m as GcsFileMeta);
    } catch (e) {
      if ((e as { code?: number }).code === 404) return null;
      this.fail(e, key);
    }
  }

  async get(key: string, range?: { offset: number; length: number }): Promise<Buffer> {
    try {
      const [b] = await this.bucket.file(key).download(range ? { start: range.offset, end: range.offset + range.length - 1 } : {});
      return b;
    } catch (e) {
      this.fail(e, key);
    }
  }
}
