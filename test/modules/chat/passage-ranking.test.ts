import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { rankPassages } from '../../../src/modules/chat/passage-ranking.ts';
import { analyzeQuestion } from '../../../src/providers/ai/question.ts';

// Passages of several documents ranked together (chat across a folder or the tenant).
const options = { top: 5, minScore: 0.08 };
const question = (q: string) => ({ analysis: analyzeQuestion(q), vector: null });

describe('ranking passages of several documents', () => {
  it("the document search ranked first wins between passages that fit alike; without weights it's the passage alone", () => {
    const passages = [
      { documentId: 'b', index: 0, page: null, text: 'The notice period is three months.', vector: null, weight: 0.8 },
      { documentId: 'a', index: 0, page: null, text: 'The notice period is one month.', vector: null, weight: 1 },
    ];
    const ranked = rankPassages(question('What is the notice period?'), passages, options);
    assert.equal(ranked[0]?.documentId, 'a');
    assert.ok(ranked.every((p) => p.score <= 1));
    const unweighted = rankPassages(
      question('What is the notice period?'),
      passages.map(({ weight: _, ...p }) => p),
      options,
    );
    assert.equal(unweighted[0]?.documentId, 'b', 'equal passages keep their order');
  });

  it('a list goes on in the next chunk of the same document only', () => {
    const passages = [
      { documentId: 'a', index: 0, page: null, text: 'Quantara will deliver the following:', vector: null },
      { documentId: 'b', index: 1, page: null, text: 'Unrelated minutes of a meeting.', vector: null },
      { documentId: 'a', index: 1, page: null, text: '- a report\n- a dashboard', vector: null },
    ];
    const ranked = rankPassages(question('What will Quantara deliver?'), passages, options);
    assert.equal(ranked[0]?.documentId, 'a');
    const next = ranked.find((p) => p.index === 1);
    assert.equal(next?.documentId, 'a');
  });
});
