import type { Container } from '../../src/container.ts';
import { type TestSeams, testSeamOf } from '../../src/platform/test-seams.ts';

/**
 * A service a module hands to tests only (src/platform/test-seams.ts), e.g. the signing keys to
 * rotate or the mail outbox to read; the container does not publish these.
 */
export function testSeam<K extends keyof TestSeams>(container: Container, name: K): TestSeams[K] {
  return testSeamOf(container.modules, name);
}
