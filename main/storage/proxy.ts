// Proxies from the run's environment (HTTPS_PROXY / HTTP_PROXY / NO_PROXY, lowercase too), for the
// SDKs that do not read them from the injected environment themselves. The S3 client (AWS SDK v3)
// reads none: it gets the agents below, which open every connection through an HTTP CONNECT
// tunnel to the proxy (TLS to the store inside the tunnel for https), unless the host is in
// NO_PROXY. Written on node:http / node:tls, no dependency.
import { Agent as HttpAgent, request, type AgentOptions } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { connect as tlsConnect, rootCertificates, type ConnectionOptions } from 'node:tls';
import type { Duplex } from 'node:stream';
import { isIP, type Socket } from 'node:net';
import { LakerecError } from '../../shared/errors';

const pick = (env: NodeJS.ProcessEnv, name: string): string | undefined => env[name] || env[name.toLowerCase()] || undefined;

/** The proxy URL for a request to `target` (a URL), or null: none set, or the host is in NO_PROXY. */
export function proxyFor(target: URL, env: NodeJS.ProcessEnv): URL | null {
  const raw = target.protocol === 'https:' ? pick(env, 'HTTPS_PROXY') ?? pick(env, 'HTTP_PROXY') : pick(env, 'HTTP_PROXY');
  if (!raw) return null;
  if (bypassed(target.hostname, target.port || (target.protocol === 'https:' ? '443' : '80'), pick(env, 'NO_PROXY') ?? '')) return null;
  try {
    return new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(raw) ? raw : `http://${raw}`);
  } catch {
    throw new LakerecError('usage', 'the proxy setting (HTTPS_PROXY / HTTP_PROXY) is not a URL');
  }
}

/** NO_PROXY as curl reads it: `*`, host names (a leading dot or not: the domain and its subdomains), host:port. */
export function bypassed(host: string, port: string, noProxy: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  for (const entry of noProxy.split(/[,\s]+/).map((e) => e.trim().toLowerCase()).filter(Boolean)) {
    if (entry === '*') return true;
    const m = entry.match(/^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/);
    if (!m) continue;
    if (m[2] && m[2] !== port) continue;
    const name = m[1].replace(/^\[|\]$/g, '').replace(/^\*?\./, '');
    if (h === name || h.endsWith(`.${name}`)) return true;
  }
  return false;
}

interface TunnelOptions { host?: string | null; hostname?: string | null; port?: number | string | null; servername?: string }

/** Opens a CONNECT tunnel to host:port through the proxy; the socket is the tunnel's. */
function tunnel(proxy: URL, host: string, port: number, done: (err: Error | null, socket?: Socket) => void): void {
  const auth = proxy.username ? { 'proxy-authorization': `Basic ${Buffer.from(`${decodeURIComponent(proxy.username)}:${decodeURIComponent(proxy.password)}`).toString('base64')}` } : {};
  const target = host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
  const req = request({ host: proxy.hostname, port: Number(proxy.port) || 80, method: 'CONNECT', path: target, headers: { host: target, ...auth }, agent: false });
  req.once('connect', (res, socket) => {
    if (res.statusCode !== 200) {
      socket.destroy();
      done(new LakerecError('io_error', `the proxy ${proxy.host} refused the tunnel to ${target} (HTTP ${res.statusCode})`));
      return;
    }
    done(null, socket);
  });
  req.once('error', (e) => done(new LakerecError('io_error', `the proxy ${proxy.host} could not be reached (${(e as NodeJS.ErrnoException).code ?? e.message})`)));
  req.end();
}

type Oncreate = (err: Error | null, socket?: Duplex) => void;

class TunnelHttpAgent extends HttpAgent {
  constructor(private readonly env: NodeJS.ProcessEnv, opts: AgentOptions) { super(opts); }
  override createConnection(options: TunnelOptions, oncreate: Oncreate): Duplex | undefined {
    const host = String(options.hostname ?? options.host ?? 'localhost');
    const port = Number(options.port) || 80;
    const proxy = proxyFor(new URL(`http://${host.includes(':') ? `[${host}]` : host}:${port}`), this.env);
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    if (!proxy) return (HttpAgent.prototype as any).createConnection.call(this, options, oncreate) as Duplex;
    tunnel(proxy, host, port, (err, socket) => oncreate(err, socket));
    return undefined;
  }
}

class TunnelHttpsAgent extends HttpsAgent {
  constructor(private readonly env: NodeJS.ProcessEnv, opts: AgentOptions) { super(opts); }
  override createConnection(options: TunnelOptions & ConnectionOptions, oncreate: Oncreate): Duplex | undefined {
    const host = String(options.hostname ?? options.host ?? 'localhost');
    const port = Number(options.port) || 443;
    const proxy = proxyFor(new URL(`https://${host.includes(':') ? `[${host}]` : host}:${port}`), this.env);
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    if (!proxy) return (HttpsAgent.prototype as any).createConnection.call(this, options, oncreate) as Duplex;
    tunnel(proxy, host, port, (err, socket) => {
      if (err || !socket) { oncreate(err); return; }
      const tls = tlsConnect({ ...options, socket, servername: options.servername ?? (isIP(host) ? undefined : host) });
      tls.once('secureConnect', () => oncreate(null, tls));
      tls.once('error', (e) => oncreate(e));
    });
    return undefined;
  }
}

/**
 * The agents for a client: tunnelling ones when the environment sets a proxy, trusting `ca` (PEM
 * certificates added to Node's own) when given; null when neither (the SDK's own agents).
 */
export function proxyAgents(env: NodeJS.ProcessEnv, ca?: string): { httpAgent: HttpAgent; httpsAgent: HttpsAgent } | null {
  if (!pick(env, 'HTTPS_PROXY') && !pick(env, 'HTTP_PROXY') && ca === undefined) return null;
  const opts: AgentOptions & { ca?: string[] } = { keepAlive: true, maxSockets: 50, ...(ca !== undefined ? { ca: [...rootCertificates, ca] } : {}) };
  return { httpAgent: new TunnelHttpAgent(env, opts), httpsAgent: new TunnelHttpsAgent(env, opts) };
}

/** Azure's proxy options for an endpoint (its pipeline would read only the process's environment). */
export function azureProxyOptions(endpoint: string, env: NodeJS.ProcessEnv): { host: string; port: number; username?: string; password?: string } | undefined {
  const p = proxyFor(new URL(endpoint), env);
  if (!p) return undefined;
  return {
    host: `${p.protocol}//${p.hostname}`,
    port: Number(p.port) || (p.protocol === 'https:' ? 443 : 80),
    ...(p.username ? { username: decodeURIComponent(p.username), password: decodeURIComponent(p.password) } : {}),
  };
}
