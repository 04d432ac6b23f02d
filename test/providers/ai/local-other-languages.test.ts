import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LocalAiProvider } from '../../../src/providers/ai/local/local-provider.ts';
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

Rechnungsbetrag: 11.420,00 €
abzgl. Anzahlung: -3.000,00 €
Zu zahlender Betrag: 8.420,00 €

Zahlbar innerhalb von 14 Tagen, also bis zum 17.02.2026, ohne Abzug.

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

  it('reads the key fields of an invoice by the labels of its language', async () => {
    const e = await new LocalAiProvider().enrich(GERMAN_INVOICE, { referenceDate: new Date('2026-03-01T12:00:00Z') });
    assert.equal(e.documentType.value, 'invoice');
    assert.equal(e.fields['document_number']?.value, 'HS-2026-0412');
    assert.equal(e.fields['issue_date']?.value, '2026-02-03');
    assert.equal(e.fields['due_date']?.value, '2026-02-17');
    // The amount left to pay, the last total of the invoice, not the gross before the deposit.
    const total = e.fields['total']?.value as { value: number; currency: string } | undefined;
    assert.equal(total?.value, 8420);
    assert.equal(total?.currency, 'EUR');
  });
});
