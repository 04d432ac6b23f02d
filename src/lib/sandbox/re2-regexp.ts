import { createRequire } from 'node:module';
import type { RE2JS as Re2Engine } from 're2js';

// re2js (~0.9 MB of JavaScript) loads on the first pattern, not at start: the modules that import
// this file (workflows, imports) must not grow the idle process (issue 10).
const load = createRequire(import.meta.url);
let engine: typeof Re2Engine | undefined;
function re2(): typeof Re2Engine {
  engine ??= (load('re2js') as { RE2JS: typeof Re2Engine }).RE2JS;
  return engine;
}

/**
 * A `RegExp`-shaped object backed by RE2 (re2js, Google's RE2 ported to plain JavaScript): matching
 * takes time linear in the input whatever the pattern, so `(a+)+$` cannot backtrack for minutes.
 * RE2 has no lookaround and no backreferences: such a pattern fails to compile (SyntaxError), as an
 * invalid pattern does. It serves the libraries that accept a regular-expression engine (JSONata's
 * `RegexEngine`, Ajv's `code.regExp`) and CEL's `matches`, whose specification is RE2 syntax.
 *
 * Why re2js rather than `re2-wasm`: both install as plain files (nothing compiled, nothing
 * downloaded), but re2js is maintained, needs no `u` flag on every pattern and no WebAssembly
 * memory that only ever grows, and was as fast on the patterns measured (docs/security.md).
 */
export class Re2RegExp {
  lastIndex = 0;
  readonly source: string;
  readonly flags: string;
  readonly global: boolean;
  readonly #pattern: Re2Engine;

  constructor(pattern: string | RegExp | Re2RegExp, flags?: string) {
    this.source = typeof pattern === 'string' ? pattern : pattern.source;
    this.flags = flags ?? (typeof pattern === 'string' ? '' : pattern.flags);
    this.global = this.flags.includes('g') || this.flags.includes('y');
    const RE2JS = re2();
    let options = 0;
    if (this.flags.includes('i')) options |= RE2JS.CASE_INSENSITIVE;
    if (this.flags.includes('m')) options |= RE2JS.MULTILINE;
    if (this.flags.includes('s')) options |= RE2JS.DOTALL;
    try {
      this.#pattern = RE2JS.compile(this.source, options);
    } catch (error) {
      throw new SyntaxError(
        `Invalid regular expression /${this.source}/: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }

  /** As `RegExp.prototype.exec`: a global pattern goes on from `lastIndex`. */
  exec(input: string): RegExpExecArray | null {
    const text = String(input);
    const from = this.global ? this.lastIndex : 0;
    const matcher = this.#pattern.matcher(text);
    if (from > text.length || !matcher.find(from)) {
      if (this.global) this.lastIndex = 0;
      return null;
    }
    const groups: (string | undefined)[] = [];
    for (let i = 0; i <= matcher.groupCount(); i++) groups.push(matcher.group(i) ?? undefined);
    if (this.global) this.lastIndex = matcher.end();
    return Object.assign(groups, {
      index: matcher.start(),
      input: text,
      groups: undefined,
    }) as unknown as RegExpExecArray;
  }

  test(input: string): boolean {
    return this.exec(input) !== null;
  }

  toString(): string {
    return `/${this.source}/${this.flags}`;
  }
}

/** Ajv's `code.regExp`: patterns of user-written JSON Schemas compiled by RE2. */
export const re2ForAjv = Object.assign((pattern: string, flags: string) => new Re2RegExp(pattern, flags), {
  code: 'new (require("re2js").RE2JS)',
});
