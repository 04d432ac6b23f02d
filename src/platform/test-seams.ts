/**
 * Services a module hands to tests only: a counter to assert on, a key to rotate, rows to read.
 * They are not `ModuleServices`, so no module can `use()` them and the container does not publish
 * them; a module returns them as `testSeams` from its setup, and tests reach them through
 * test/support/test-seams.ts. A module adds its own entries from its `index.ts`:
 *
 * ```ts
 * declare module '../../platform/test-seams.ts' {
 *   interface TestSeams { signingKeys: SigningKeys }
 * }
 * ```
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled by declaration merging from each module's entry.
export interface TestSeams {}

/** Keyed by the assembled modules (src/platform/assemble-modules.ts) the seams came from. */
const seams = new WeakMap<object, Partial<TestSeams>>();

/** Called once by assembleModules with what every module handed to tests. */
export function keepTestSeams(modules: object, testSeams: Partial<TestSeams>): void {
  seams.set(modules, testSeams);
}

/** What a module of these assembled modules handed to tests (test/support/test-seams.ts). */
export function testSeamOf<K extends keyof TestSeams>(modules: object, name: K): TestSeams[K] {
  const seam = seams.get(modules)?.[name];
  if (seam === undefined) throw new Error(`no module handed "${String(name)}" to tests`);
  return seam as TestSeams[K];
}
