// DOM helpers: elements built with textContent (never innerHTML from data), so nothing a document
// contains can run as markup; search highlights are the one exception, reduced to <mark> only.

type Child = Node | string | null | undefined | false;

/** `h('button', {type: 'submit'}, 'Save')`: an element with attributes (on* are listeners) and children. */
export function h(tag: string, attrs: Record<string, unknown> = {}, ...children: Child[]): HTMLElement {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === false || value === null) continue;
    if (name.startsWith('on') && typeof value === 'function')
      el.addEventListener(name.slice(2), value as EventListener);
    else el.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children) if (child !== null && child !== undefined && child !== false) el.append(child);
  return el;
}

/** Replaces the main area's content (the router moves focus there when the view changes). */
export function show(...children: Child[]): void {
  const main = document.getElementById('main') as HTMLElement;
  main.replaceChildren(...(children.filter(Boolean) as (Node | string)[]));
}

/** An error line for a failure. */
export function errorLine(error: unknown): HTMLElement {
  const message = error instanceof Error ? error.message : String(error);
  return h('p', { class: 'error', role: 'alert' }, message);
}

/** The service's highlight (escaped text with <mark>) as nodes, any other tag dropped. */
export function highlight(html: string): HTMLElement {
  const span = h('span');
  span.innerHTML = html.replace(/<(?!\/?mark>)[^>]*>/g, '');
  return span;
}

export function formatBytes(n: number): string {
  return n < 1024 ? `${n} B` : n < 1048576 ? `${(n / 1024).toFixed(1)} KB` : `${(n / 1048576).toFixed(1)} MB`;
}

/** Asks the router to draw the current view again (after a change), without moving focus. */
export function rerender(): void {
  window.dispatchEvent(new Event('console:rerender'));
}

/** A labelled input on its own line. */
export function field(label: string, name: string, type: string, attrs: Record<string, unknown> = {}): HTMLElement {
  return h(
    'p',
    {},
    h('label', { for: name }, label),
    h('br'),
    h('input', {
      id: name,
      name,
      type,
      required: true,
      autocomplete: type === 'password' ? 'current-password' : 'on',
      ...attrs,
    }),
  );
}

/** A button that runs an action, showing its failure beside it instead of losing it. */
export function actionButton(
  label: string,
  action: () => Promise<unknown>,
  attrs: Record<string, unknown> = {},
): HTMLElement {
  const button = h('button', { type: 'button', ...attrs }, label) as HTMLButtonElement;
  button.addEventListener('click', async () => {
    button.disabled = true;
    button.nextElementSibling?.matches('.error') && button.nextElementSibling.remove();
    try {
      await action();
    } catch (error) {
      button.after(errorLine(error));
    } finally {
      button.disabled = false;
    }
  });
  return button;
}

export function formatDate(iso: string | null | undefined): string {
  return iso ? new Date(iso).toLocaleString() : '–';
}
