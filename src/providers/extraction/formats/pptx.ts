import { readFile } from 'node:fs/promises';
import { posix } from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import JSZip from 'jszip';
import type { FormatReader } from './context.ts';
import { compactMetadata } from './context.ts';
import { officeProperties } from './ooxml.ts';
import { joinPages, normaliseText, TextBuilder } from './text-utils.ts';
import { guardZip } from './zip-guard.ts';

type Node = Record<string, unknown>;

// preserveOrder keeps runs and paragraphs in reading order.
const ordered = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: true,
  parseTagValue: false,
  trimValues: false,
  htmlEntities: false,
});
const withAttributes = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '',
  removeNSPrefix: true,
  parseTagValue: false,
  htmlEntities: false,
});

/** PPTX: the `a:t` runs of each slide in presentation order, then its speaker notes; one page per slide. */
export const readPptx: FormatReader = async ({ path, extension, maxDecodedBytes }) => {
  await guardZip(path, extension, { maxPartBytes: maxDecodedBytes });
  const zip = await JSZip.loadAsync(await readFile(path));
  const slidePaths = await slideOrder(zip);
  if (slidePaths.length === 0 && !zip.file('ppt/presentation.xml'))
    throw new Error('the presentation part (ppt/presentation.xml) is missing');
  const out = new TextBuilder();
  const pages: string[] = [];
  for (const slidePath of slidePaths) {
    const xml = await zip.file(slidePath)?.async('string');
    if (xml === undefined) continue;
    const parts = [paragraphs(xml)];
    const notesPath = (await relationships(zip, slidePath)).find((r) => r.type.endsWith('/notesSlide'))?.target;
    const notes = notesPath ? await zip.file(notesPath)?.async('string') : undefined;
    if (notes) {
      const body = paragraphs(notes).trim();
      if (body) parts.push(`Notes: ${body}`);
    }
    const page = normaliseText(parts.join('\n\n'));
    pages.push(page);
    if (!out.add(`${page}\n\n`)) break;
  }
  const props = await officeProperties((name) => zip.file(name)?.async('string') ?? Promise.resolve(undefined));
  return {
    text: out.truncated ? normaliseText(out.toString()) : joinPages(pages),
    pages,
    metadata: compactMetadata({
      ...props,
      slides: pages.length,
      pages: undefined,
      truncated: out.truncated || undefined,
    }),
    media: null,
  };
};

/** Slide part paths in presentation order (p:sldIdLst), or by number when that list is unreadable. */
async function slideOrder(zip: JSZip): Promise<string[]> {
  const presentation = await zip.file('ppt/presentation.xml')?.async('string');
  const rels = await relationships(zip, 'ppt/presentation.xml');
  if (presentation) {
    const root = (withAttributes.parse(presentation) as Node).presentation as Node | undefined;
    const list = (root?.sldIdLst as Node | undefined)?.sldId;
    const ids = (Array.isArray(list) ? list : list ? [list] : []) as Node[];
    const byId = new Map(rels.map((r) => [r.id, r.target]));
    const paths = ids
      .map((s) => byId.get(String(s.id ?? '')))
      .filter((p): p is string => p !== undefined && zip.file(p) !== null);
    if (paths.length > 0) return paths;
  }
  const number = (p: string) => Number(/(\d+)\.xml$/.exec(p)?.[1] ?? 0);
  return Object.keys(zip.files)
    .filter((p) => /^ppt\/slides\/slide\d+\.xml$/.test(p))
    .sort((a, b) => number(a) - number(b));
}

/** The relationships of a part: id, type and the target's path inside the zip. */
async function relationships(zip: JSZip, part: string): Promise<{ id: string; type: string; target: string }[]> {
  const dir = posix.dirname(part);
  const xml = await zip.file(`${dir}/_rels/${posix.basename(part)}.rels`)?.async('string');
  if (!xml) return [];
  const list = ((withAttributes.parse(xml) as Node).Relationships as Node | undefined)?.Relationship;
  const items = (Array.isArray(list) ? list : list ? [list] : []) as Node[];
  return items
    .filter((r) => r.TargetMode !== 'External')
    .map((r) => ({
      id: String(r.Id ?? ''),
      type: String(r.Type ?? ''),
      target: posix.normalize(posix.join(dir, String(r.Target ?? ''))),
    }));
}

/** The text of every `a:p` paragraph (its `a:t` runs joined), one per line; `a:br` breaks a line; fields are left out. */
function paragraphs(xml: string): string {
  const lines: string[] = [];
  const walk = (nodes: unknown[], line: string[] | null) => {
    for (const node of nodes as Node[]) {
      for (const [tag, children] of Object.entries(node)) {
        // a:fld holds generated text (slide numbers, dates), not what the author wrote.
        if (tag === ':@' || tag === 'a:fld' || !Array.isArray(children)) continue;
        if (tag === 'a:p') {
          const paragraph: string[] = [];
          walk(children, paragraph);
          lines.push(paragraph.join(''));
        } else if (tag === 'a:t' && line) {
          line.push(children.map((c) => String((c as Node)['#text'] ?? '')).join(''));
        } else if (tag === 'a:br' && line) {
          line.push('\n');
        } else {
          walk(children, line);
        }
      }
    }
  };
  walk(ordered.parse(xml) as unknown[], null);
  return lines.join('\n');
}
