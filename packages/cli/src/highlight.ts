// The API's `highlight` is HTML: escaped text with `<mark>` around the matched words. A terminal
// shows neither tags nor entities, so the marks become bold on a terminal and vanish elsewhere
// (a pipe or a file gets plain text).
const BOLD = '\u001b[1m';
const NORMAL = '\u001b[22m';
const ENTITIES: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'" };

/** A highlight for the terminal: matched words bold when `tty`, plain text otherwise; whitespace runs as one space. */
export function terminalHighlight(html: string, tty: boolean): string {
  return html
    .replace(/\s+/g, ' ')
    .replace(/<mark>([\s\S]*?)<\/mark>/g, (_, words: string) => (tty ? `${BOLD}${words}${NORMAL}` : words))
    .replace(/<\/?mark>/g, '')
    .replace(/&(?:amp|lt|gt|quot|#39);/g, (entity) => ENTITIES[entity] ?? entity);
}
