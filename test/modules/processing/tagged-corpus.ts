/**
 * A small tagged library for the learned-tag tests: invoices (`finance`), offer letters (`hr`) and
 * facility notes (untagged), each written from varied parts so no two are the same text.
 */

const VENDORS = [
  'Acme Office Supplies',
  'Brightline Printing',
  'Cobalt Cleaning Services',
  'Delta Courier Group',
  'Evergreen Catering',
  'Fjord Software Licensing',
  'Granite Security',
];
const PEOPLE = ['Maria Lopez', 'Tom Becker', 'Aisha Khan', 'Jonas Weber', 'Priya Nair', 'Lucas Martin', 'Emma Clarke'];
const ROLES = [
  'Data Analyst',
  'Account Manager',
  'Software Engineer',
  'Office Coordinator',
  'Marketing Specialist',
  'Payroll Officer',
  'Sales Lead',
];
const ROOMS = [
  'meeting room 2',
  'the kitchen',
  'the loading bay',
  'the second floor corridor',
  'the reception',
  'the archive room',
  'the car park',
];

export function invoice(i: number): string {
  const vendor = VENDORS[i % VENDORS.length]!;
  const amount = (1_000 + 137 * i).toLocaleString('en-US');
  return [
    `INVOICE INV-${2040 + i}`,
    `${vendor}, 12 Market Street, Leeds.`,
    `Bill to: Harbor Analytics Ltd, accounts payable.`,
    `Invoice date: 2025-0${(i % 8) + 1}-15. Payment due within 30 days of the invoice date.`,
    `Description: monthly service fee and supplies, quantity ${i + 2}, unit price and VAT as listed.`,
    `Subtotal, VAT 20% and total amount due: GBP ${amount}.00.`,
    'Please remit payment by bank transfer to the account below, quoting the invoice number.',
    'Late payment interest applies to overdue balances. Thank you for your business.',
  ].join('\n');
}

export function offerLetter(i: number): string {
  const person = PEOPLE[i % PEOPLE.length]!;
  const role = ROLES[i % ROLES.length]!;
  return [
    `Dear ${person},`,
    `We are delighted to offer you employment as ${role} at Harbor Analytics Ltd.`,
    `Your starting salary will be GBP ${42 + i},000 per annum, paid monthly, with a probation period of six months.`,
    'You will be entitled to 25 days of annual leave, the company pension scheme and private health insurance.',
    `Your start date is ${i + 1} September 2025; your manager will welcome you on your first day.`,
    'Please sign and return a copy of this offer letter and the employment contract to Human Resources.',
    'Kind regards, People and Culture team',
  ].join('\n');
}

export function facilityNote(i: number): string {
  const room = ROOMS[i % ROOMS.length]!;
  return [
    `Facilities notice ${i + 1}`,
    `The lights in ${room} will be replaced on Thursday morning by the maintenance contractor.`,
    'Please keep the area clear of boxes and chairs while the ladders are in use.',
    'The heating will be serviced the same week; radiators may be cold for an hour.',
    'Report any leaks, broken door handles or blocked drains to the building manager.',
  ].join('\n');
}
