import { XMLParser } from 'fast-xml-parser';
import { isoDate } from './context.ts';

/** What docProps/core.xml and docProps/app.xml say about an Office Open XML file. */
export interface OfficeProperties {
  author?: string;
  title?: string;
  subject?: string;
  created?: string;
  modified?: string;
  pages?: number;
  slides?: number;
  words?: number;
}

const propertiesParser = new XMLParser({
  ignoreAttributes: true,
  removeNSPrefix: true,
  parseTagValue: false,
  htmlEntities: false,
});

/** Reads a part of the package as text, or undefined when it is absent. */
export type PartReader = (name: string) => Promise<string | undefined>;

/** The author, title and dates of core.xml, and the counts of app.xml, when present. */
export async function officeProperties(read: PartReader): Promise<OfficeProperties> {
  const out: OfficeProperties = {};
  const core = await read('docProps/core.xml');
  if (core) {
    const props = (propertiesParser.parse(core) as Record<string, Record<string, unknown>>).coreProperties ?? {};
    out.author = text(props.creator);
    out.title = text(props.title);
    out.subject = text(props.subject);
    out.created = isoDate(text(props.created));
    out.modified = isoDate(text(props.modified));
  }
  const app = await read('docProps/app.xml');
  if (app) {
    const props = (propertiesParser.parse(app) as Record<string, Record<string, unknown>>).Properties ?? {};
    out.pages = count(props.Pages);
    out.slides = count(props.Slides);
    out.words = count(props.Words);
  }
  return out;
}

function text(value: unknown): string | undefined {
  if (typeof value === 'string') return value.trim() || undefined;
  if (typeof value === 'number') return String(value);
  return undefined;
}

function count(value: unknown): number | undefined {
  const n = Number(text(value));
  return Number.isInteger(n) && n >= 0 ? n : undefined;
}
