import { Re2RegExp } from './re2-regexp.ts';

/**
 * A user-written glob compiled for RE2, so matching is linear in the path whatever the pattern
 * (picomatch's JavaScript patterns backtrack: `*a*a*a*a*a*a*a*a*a*a*a*a*b` against a name of
 * 3,000 `a`s ran for minutes). Supports `*` (within a path segment, dots included), `**` (any
 * number of segments), `?`, `[abc]`, `[!abc]`, `{a,b}` (nested), and `\` escapes.
 */
export function globToRegExp(glob: string): Re2RegExp {
  return new Re2RegExp(`^${translate(glob)}$`);
}

function translate(glob: string): string {
  let out = '';
  let braces = 0;
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '\\' && i + 1 < glob.length) {
      out += literal(glob[++i]!);
    } else if (c === '*' && glob[i + 1] === '*') {
      const segmentStart = i === 0 || glob[i - 1] === '/';
      i++;
      while (glob[i + 1] === '*') i++;
      if (segmentStart && glob[i + 1] === '/') {
        out += '(?:.*/)?'; // `**/`: zero or more whole segments
        i++;
      } else if (segmentStart && i === glob.length - 1 && out.endsWith('/')) {
        out = `${out.slice(0, -1)}(?:/.*)?`; // `/**` at the end: the folder itself or anything below it
      } else out += '.*';
    } else if (c === '*') out += '[^/]*';
    else if (c === '?') out += '[^/]';
    else if (c === '[') {
      const end = glob.indexOf(']', i + 2);
      if (end < 0) out += '\\[';
      else {
        const body = glob.slice(i + 1, end);
        const negated = body.startsWith('!') || body.startsWith('^');
        out += `[${negated ? '^/' : ''}${(negated ? body.slice(1) : body).replace(/[\\\]^]/g, '\\$&')}]`;
        i = end;
      }
    } else if (c === '{') {
      braces++;
      out += '(?:';
    } else if (c === '}' && braces > 0) {
      braces--;
      out += ')';
    } else if (c === ',' && braces > 0) out += '|';
    else out += literal(c);
  }
  return out + ')'.repeat(braces);
}

function literal(c: string): string {
  return /[.*+?^${}()|[\]\\]/.test(c) ? `\\${c}` : c;
}
