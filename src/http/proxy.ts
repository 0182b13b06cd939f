// The proxy kubectl would use for a URL: Go's http.ProxyFromEnvironment
// (golang.org/x/net/http/httpproxy) takes HTTPS_PROXY for https and HTTP_PROXY for http (or their
// lowercase names), skips hosts NO_PROXY lists, and never proxies localhost or a loopback address;
// containerd follows the same rules. Node reads none of them (Node 20 and 22): kguard's requests
// go through undici's EnvHttpProxyAgent, which reads the same variables and NO_PROXY list, when
// `proxyFor` names a proxy. Pure.

/** The proxy kubectl would send this URL through, before NO_PROXY (EnvHttpProxyAgent applies it). */
export function proxyFor(url: URL, env: NodeJS.ProcessEnv): string | undefined {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (host === 'localhost' || /^127\./.test(host) || host === '::1') return undefined;
  const proxy =
    url.protocol === 'https:'
      ? (env.HTTPS_PROXY ?? env.https_proxy)
      : url.protocol === 'http:'
        ? (env.HTTP_PROXY ?? env.http_proxy)
        : undefined;
  return proxy || undefined;
}

/** The proxy variables as undici's EnvHttpProxyAgent takes them (the upper-case name first, as Go reads them). */
export function proxySettings(env: NodeJS.ProcessEnv): {
  httpProxy: string | undefined;
  httpsProxy: string | undefined;
  noProxy: string | undefined;
} {
  return {
    httpProxy: env.HTTP_PROXY ?? env.http_proxy,
    httpsProxy: env.HTTPS_PROXY ?? env.https_proxy,
    noProxy: env.NO_PROXY ?? env.no_proxy,
  };
}
