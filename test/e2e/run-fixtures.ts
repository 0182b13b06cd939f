// What the journal and run tests share: a registry with a missing image and one whose pulls are
// throttled for as long as a test needs a run to stay alive, and kguard flags that keep runs short.
import { sandbox, type Sandbox } from './harness.js';

export const MISSING = 'xxxxxnginx:1.17';
export const THROTTLED = 'registry.example.com/shop/web:2.0';
// A short request timeout: a rollback of a run killed during its apply waits that long for its requests.
export const fast = ['--poll-interval', '300ms', '--timeout', '60s', '--request-timeout', '3s'];

export function runSandbox(): Promise<Sandbox> {
  return sandbox({ scenario: { registry: { [MISSING]: 'missing', [THROTTLED]: { rateLimitedPulls: 1_000_000 } } } });
}
