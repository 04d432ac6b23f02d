import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { classifyDocument } from '../../../src/providers/ai/local/document-types.ts';
import { extractKeyPhrases, writtenLanguage } from '../../../src/providers/ai/local/keywords.ts';

// Documents written in another language than English: their titles and labels type them, their
// function words are not topics, and (German) a capital does not make every noun a name.
// Text made up for the test.

const GERMAN_INVOICE = `Holzbau Sommer GmbH
Lindenweg 4, 79098 Freiburg

RECHNUNG

Rechnungsnummer: HS-2026-0412
Rechnungsdatum: 03.02.2026

Sehr geehrte Damen und Herren,

für die Lieferung und Montage der Dachbalken im Dachgeschoss berechnen wir Ihnen folgende Leistungen.
Die Dachbalken wurden nach der Zeichnung vom 12.01.2026 gefertigt und bei der Montage geprüft.
Die Montage der Dachbalken erfolgte mit zwei Zimmerern an drei Tagen.

Zu zahlender Betrag: 8.420,00 €

Mit freundlichen Grüßen
Jonas Brenner`;

describe('local enrichment: documents in other languages', () => {
  it('types a document by a title and labels of another language', () => {
    assert.equal(classifyDocument(GERMAN_INVOICE).value, 'invoice');
    assert.equal(classifyDocument('DEVIS\n\nN° de devis : D-2026-88\nValidité du devis : 30 jours\n').value, 'quote');
    assert.equal(
      classifyDocument('Facture\n\nNuméro de facture : F-2026-17\nDate : 03/02/2026\nMontant TTC : 1 200,00 €').value,
      'invoice',
    );
  });

  it('tells the language and keeps its function words out of the tags', () => {
    assert.equal(writtenLanguage(GERMAN_INVOICE), 'de');
    assert.equal(
      writtenLanguage('The supplier delivers the goods to the buyer within the time agreed in this order.'),
      null,
    );
    const tags = extractKeyPhrases(GERMAN_INVOICE);
    for (const stop of ['für', 'und', 'der', 'die', 'bei', 'vom', 'mit', 'wir'])
      assert.ok(!tags.includes(stop), tags.join(' | '));
    // A German noun is a topic, not a name, though written with a capital.
    assert.ok(tags.includes('dachbalken'), tags.join(' | '));
  });
});
