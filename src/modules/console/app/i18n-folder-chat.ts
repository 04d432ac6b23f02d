// The strings of "Ask about this folder" on the documents page (merged into the one table of i18n.ts).
export const folderChatStrings = {
  'folderChat.open': 'Ask about this folder',
  'folderChat.openAll': 'Ask about all documents',
  'folderChat.hint': 'Answers come from the processed documents in this folder and its subfolders that you may read.',
  'folderChat.hintAll': 'Answers come from every processed document you may read.',
  'folderChat.session': 'About {name}',
  'folderChat.sessionAll': 'About all documents',
  'folderChat.source': 'Source {n}: open the document',
  'folderChat.sourcePage': 'Source {n}: open the document at page {page}',
} as const;
