import { describe, expect, test } from 'vitest';
import { textViolations } from '../../domain/catalogue/text.ts';

/**
 * Contact details spelled with characters that look like (or are read by URL parsers and browsers
 * as) the ones the rules look for. Each row is one spelling; the rules judge a normalised copy.
 */
describe('look-alike spellings', () => {
  test.each([
    ['separators of three characters', 'Sunați la 0721 - 234 - 567', ['phone']],
    ['separators of four characters', 'Sunați la (0721) - 234 -- 567', ['phone']],
    ['en dashes between groups', 'Call 0721–234–567', ['phone']],
    ['full-width digits', 'Sunați la ０７２１２３４５６７', ['phone']],
    ['Arabic-Indic digits', 'Sunați la ٠٧٢١٢٣٤٥٦٧', ['phone']],
    ['Extended Arabic-Indic digits', 'Sunați la ۰۷۲۱۲۳۴۵۶۷', ['phone']],
    ['Devanagari digits', 'Sunați la ०७२१२३४५६७', ['phone']],
    ['mixed scripts and spaces', 'Sunați la ٠٧٢١ ２３４ ५६७', ['phone']],
    ['zero-width spaces between digit groups', 'Call 0721\u200b234\u200b567', ['phone']],
    ['full-width at-sign and ideographic full stop', 'Scrieți la rezervari＠casabran。ro', ['email']],
    ['small commercial at (U+FE6B)', 'Scrieți la rezervari﹫casabran.ro', ['email']],
    ['ideographic full stop (U+3002)', 'Rezervări pe casabran。ro', ['url']],
    ['full-width full stop (U+FF0E)', 'Book at evil．com', ['url']],
    ['halfwidth ideographic full stop (U+FF61)', 'Book at casabran｡ro', ['url']],
    ['one dot leader (U+2024)', 'Book at casabran․ro', ['url']],
    ['small full stop (U+FE52)', 'Book at casabran﹒ro', ['url']],
    ['middle dot (U+00B7)', 'Book at casabran·ro', ['url']],
    ['zero-width space inside a name', 'Book at casa\u200bbran.ro', ['url']],
    ['zero-width space before the dot', 'Book at casabran\u200b.ro', ['url']],
    ['soft hyphen inside the top-level domain', 'Book at casabran.r\u00ado', ['url']],
    ['zero-width space inside www.', 'Book at ww\u200bw.example', ['url']],
    ['zero-width joiner inside a local part', 'Write to re\u200dzervari@x.ro', ['email']],
    ['zero-width joiner inside the top-level domain', 'Write to rezervari@casabran.r\u200do', ['email']],
    ['entities without a semicolon', '&ltscript&gt alert(1)', ['html']],
    ['a numeric reference without a semicolon', 'Tom &#60b&#62 Jerry', ['html']],
    ['a tag with no >', 'Frumos <img src=x onerror=alert(1)', ['html']],
    ['full-width angle brackets', 'Frumos ＜b＞mare＜/b＞', ['html']],
  ])('%s: %s', (_name, text, rules) => {
    expect(textViolations(text)).toEqual(rules);
  });
});

describe('ordinary prose', () => {
  test.each([
    'Preț: 120 lei pe noapte, 2-4 persoane, check-in 14:00, etaj 3.',
    'Construită în 1923, renovată în 2019; deschis 2024 - 2025.',
    'Strada Mihai Eminescu nr. 12, bl. 4, sc. B, ap. 17, Brașov 500123.',
    'Str. Lalelelor 7 - 9, etaj 3 din 5, lift.',
    'Check-in 14:00 - 22:00, check-out 11:00; liniște 22:00 - 08:00.',
    'Prețuri: 1 200 – 1 500 lei pe săptămână.',
    'Suprafață 65 m², ½ din curte, 3 km până la plajă.',
    'Familii binevenite 👨‍👩‍👧 ❤️ (animale ✔︎).',
    'Col·lecció d\u2019art i il·luminació natural, a 5 minuts del mar.',
    'Stanza n° 12 · piano 2 · 4 posti letto.',
    'Distanța <1 km, 5 < 10 minute pe jos.',
    'B&B Casa Bran; R&D & AT&T not included.',
    'Σπίτι· δύο υπνοδωμάτια, 3ος όροφος.',
    'غرفتان، الطابق ٣، ١٢٠ متر.',
    '駅から5分。部屋は広いです。',
  ])('lets through: %s', (text) => {
    expect(textViolations(text)).toEqual([]);
  });
});
