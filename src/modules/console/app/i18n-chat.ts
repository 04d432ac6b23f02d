// The strings of the chat's history of sessions (merged into the one table of i18n.ts).
export const chatStrings = {
  'chat.history': 'Earlier conversations ({n})',
  'chat.history.list': 'Earlier conversations',
  'chat.history.line': '{n} messages · {when}',
  'chat.history.resume': 'Resume',
  'chat.history.resumeOf': 'Resume “{name}”',
  'chat.history.current': 'Open',
  'chat.history.new': 'New conversation',
  'chat.history.delete': 'Delete',
  'chat.history.deleteOf': 'Delete conversation “{name}”',
  'chat.history.confirmDelete': 'Delete the conversation “{name}” and its messages?',
  'chat.history.more': 'The {n} most recent are listed.',
  'chat.cited.marked': 'The cited passage is marked on page {page}.',
  'chat.cited.notFound': 'The cited passage could not be found in the text of page {page} (a scanned page has none).',
} as const;
