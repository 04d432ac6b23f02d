// Word lists for the rule-based entity extractor. General English and business conventions only:
// nothing here names a particular company or person.

const set = (words: string) => new Set(words.split(/\s+/).filter(Boolean));

/** Legal-form suffixes that end a company name (lower-case, dots removed). */
export const LEGAL_SUFFIXES = set(`inc incorporated ltd limited llc llp lp plc gmbh ag sa sas sarl bv nv pty co corp
  corporation kg kgaa ab asa oy oyj spa srl kk pte pvt ulc pllc gbr ohg ug se sl sro dac ltda jsc sdn bhd tbk sab sapi
  kft zrt nyrt bt aş limitada berhad lda sac eirl doo ooo ehf oü uab sia wll a/s oo`);

/** Legal forms that are also ordinary words or abbreviations ("as", "cc", "CV"): a form only when written in capitals ("Nordvik AS", "Ubuntu Freight CC"). */
export const CAPITALS_LEGAL_SUFFIXES = set(`as aps cv npc cc sf`);

/**
 * Legal forms written before the name, in capitals: Indonesian "PT Boga Nusantara", Lithuanian "UAB …",
 * Latvian "SIA …", Russian "OOO …", Estonian and Norwegian "AS …", Romanian "SC … SRL".
 */
export const LEGAL_PREFIXES = new Set([
  'PT',
  'CV',
  'UAB',
  'AB',
  'SIA',
  'OOO',
  'ZAO',
  'OAO',
  'PAO',
  'AS',
  'SC',
  'JSC',
  'TOO',
  'AO',
]);

/** Lower-case words of other languages that sit inside a company's name closed by a legal form ("Takbyggarna i Uppsala AB"). */
export const FOREIGN_CONNECTORS = set(`i och og und et y e en`);

/** An organisation's head written in lower case after its name ("Komerční banka", "Attijariwafa bank"). */
export const LOWER_CASE_HEADS = set(`banka bank banca pankki pank spořitelna pojišťovna bankası`);

/** Heads that make a capitalised sequence an organisation on their own ("Pacific Coast Bank"). */
export const STRONG_ORG_HEADS =
  set(`bank banks university college institute institution foundation association society council
  ministry department agency authority commission hospital clinic library museum school academy federation union trust
  fund corporation company group holdings partners partnership consultancy consultants utilities laboratories laboratory
  labs industries enterprises technologies airlines airways motors pharmaceuticals insurance bureau church orchestra police
  government tribunal court parliament organisation organization brothers associates solicitors chambers cooperative
  co-operative exchange charity sparkasse banka bankası pankki pank banken spořitelna`);

/** Heads that need a distinctive word before them ("Greystone Property Management", not "Risk Management"). */
export const WEAK_ORG_HEADS =
  set(`services systems solutions software technology analytics logistics management consulting design
  studio studios energy media capital ventures health healthcare communications networks network digital international
  global resources investments securities entertainment productions press news brands foods retail properties realty
  construction engineering electric power development marketing mobile center centre relocations robotics telecom
  pharma biotech therapeutics financial finance advisors advisers trading traders shipping freight transport travel hotels
  restaurants games mills farms estates homes automotive aerospace chemicals materials metals mining petroleum
  renewables textiles apparel publishing publishers records pictures films broadcasting radio television
  telecommunications interactive innovations dynamics electronics instruments manufacturing supply supplies
  consultancy outfitters bakery brewery vineyards architects engineers accountants lawyers attorneys surveyors
  forwarders carriers couriers broadband telecoms wireless fibre fiber lines`);

/** Heads that may open a name followed by "of" ("University of Leeds", "Bank of Ireland"). */
export const OF_ORG_HEADS =
  set(`university bank ministry department institute college academy museum school church federation
  association society council commission court government chamber office bureau agency authority league order
  institution`);

/** Titles written before a name. */
export const HONORIFICS = set(`mr mrs ms miss mx dr prof professor sir dame rev reverend hon judge justice senator
  rep mayor governor president minister lord lady herr herrn frau mme mlle monsieur madame señor señora sra srta
  signor signora dott shri sri smt ông bà nana madam alhaji hajia engr ibu bapak khun doña dña sig sigra`);

/**
 * Titles that are also given names ("Don Cheadle", "Dona Lewis"): a title only when written in lower
 * case, as Spanish and Portuguese write them before a name ("representada por doña María José").
 */
export const LOWER_CASE_HONORIFICS = set(`don dona`);

/** Lower-case name particles ("van der Berg", "da Silva"). */
export const PARTICLES = set(`van der den de von da di du la le del della dos das bin binti bte al el ter ten`);

/** Lower-case words that may sit inside an organisation name between capitalised words. */
export const CONNECTORS = set(`of and & for the ve`);

/** Job titles and roles: after a name ("Jane Doe, CEO") they mark a person. */
export const ROLE_WORDS = set(`ceo cfo coo cto cio cmo cpo cso vp svp evp president vice chair chairman chairwoman
  chairperson director managing manager head lead treasurer secretary officer supervisor engineer founder co-founder
  cofounder partner counsel analyst consultant assistant coordinator accountant administrator associate trustee member
  editor author spokesperson spokesman spokeswoman representative owner principal professor lecturer researcher scientist
  architect designer developer specialist advisor adviser executive chief senior clerk controller auditor attorney lawyer
  solicitor barrister recruiter producer host reporter correspondent officer minister governor mayor senator advocate
  notary paralegal intern nurse physician surgeon teacher trainee apprentice planner technician inspector surveyor
  agent broker underwriter actuary economist pharmacist examiner adjuster signatory proprietor proprietress gérant
  gérante directeur directrice président présidente geschäftsführer geschäftsführerin prokurist prokuristin inhaber
  inhaberin diretor diretora gerente presidente direktor direktorin chargé chargée responsable jefe jefa leiter
  leiterin directora presidenta gerenta direttore direttrice amministratore dirigente responsabile prezes dyrektor
  dyrektorka ředitel ředitelka jednatel igazgató ügyvezető vezérigazgató direktør styreleder ordförande`);

/** Field labels whose value is a person ("From: …", "Prepared by: …"). */
export const PERSON_FIELD_WORDS = set(`from author prepared signed approved reviewed presented written contact attn
  attention owner chair chaired present apologies attendees attendance minuted speaker interviewer interviewee host guest
  assignee reporter requester recipient employee candidate applicant patient tenant landlord cashier served
  signatory witness agent advisor adviser consultant representative salesperson clerk engineer technician server cc
  bcc presence witnessed collected received checked inspected verified certified guarantor interpreter referee
  referees geschäftsführer geschäftsführerin geschäftsführung ansprechpartner ansprechpartnerin vorstand gerente
  contacto atención attenzione fao participants participant attendee attendees invitees members panel observers
  observer facilitator moderator copy copies absent regrets witnesses signatories`);

/** Field labels whose value is a person or an organisation, the value's own words deciding ("To: Teo Siew Ling", "To: Volta Microfinance"). */
export const PARTY_FIELD_WORDS = set(`to`);

/** Field labels whose value is an organisation ("Bill to: …", "Vendor: …"). */
export const ORG_FIELD_WORDS = set(`bill ship sold vendor supplier customer client company employer bank payee payer
  merchant store shop retailer airline hotel restaurant
  organisation organization partner issuer lender insurer carrier manufacturer distributor contractor agency firm
  institution university school account`);

/** Parties named by role in contracts, headings and forms: capitalised but never a name on their own. */
export const GENERIC_CAPITALISED = set(`customer supplier client vendor buyer seller licensor licensee contractor
  subcontractor company party parties employer employee tenant landlord lender borrower provider recipient purchaser
  agreement services service effective schedule exhibit appendix annex section clause article statement work order
  invoice total subtotal date re subject dear sincerely regards thanks hi hello okay ok yes no yeah yep great right
  present apologies actions action minutes agenda item items note notes questions risks priorities status summary
  slide sheet page chapter figure table vendor owner team board trustees staff all attn attention delivery period
  customer number description qty rate amount net gross tax vat iban bic swift account payment payments terms term
  confidentiality termination governing law scope fees data protection product roadmap quarterly review overview
  introduction conclusion background objectives goals next steps budget timeline milestones key media contact about
  press release for immediate sales time storage goods cost costs credit debit ordinary protocol disclosure discloser
  purchaser marketing finance procurement operations legal compliance accounts payroll support claims department
  west east north south central upper lower cc com fee fees total balance ceo cfo coo vp hr it pr qa ux ui ai ml api sdk faq eta tbd tbc nb ps pdf csv sla nda msa
  sow rfp kpi roi crm erp saas mvp ga am pm dc hq sirs madam colleagues facilities infrastructure quality treasury
  purchasing administration admin`);

/** Words that end street and building names, which are addresses rather than places. */
export const STREET_WORDS =
  set(`street st road rd avenue ave boulevard blvd lane ln drive dr way court ct place pl square
  sq row terrace crescent close mews parkway pkwy highway hwy alley walk gardens gate quay wharf building house tower
  floor suite plaza strasse straße gasse weg platz gracht rue via calle gate gata vei veien vej gade straat laan`);

/** Words that open street names in other languages ("Calle Colón", "Phố Huế", "Rua Augusta"): an address, not a name. */
export const STREET_FIRST = set(`calle avenida av rua rue via viale corso phố đường carrer camino paseo plaza piazza
  boulevard jalan lorong soi`);

/** Words that open the name of a district or province ("Quận Hai Bà Trưng", "Tỉnh Bình Dương"): the rest is a place. */
export const PLACE_FIRST = set(`quận huyện phường tỉnh xã`);

/**
 * Prepositions and conjunctions of other languages that open a sentence capitalised ("En Santiago,
 * a 12 de marzo", "Dans Lyon", "Im Auftrag"): grammar's capital, never a name's first word.
 */
export const FOREIGN_OPENERS = set(`en em dans nel nella nello im desde para entre sur au aux per dal dalla pada untuk
  dengan dari och ja sekä şi și ve ir oraz`);

/** Words of administrative areas that open a place's name with "of" or "de" ("Región de Antofagasta"). */
export const AREA_FIRST = set(`region región regione região province provincia província prefecture département
  departamento comuna distrito district county condado estado state oblast governorate`);

/** US state and Canadian province abbreviations as used in addresses ("Duluth, MN"). */
export const REGION_ABBREVIATIONS =
  set(`AL AK AZ AR CA CO CT DE FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE
  NV NH NJ NM NY NC ND OH OK OR PA RI SC SD TN TX UT VT VA WA WV WI WY DC ON QC BC AB MB SK NS NB NL PE Calif Ala Ariz
  Ark Colo Conn Del Fla Ga Ill Ind Kan Ky La Md Mass Mich Minn Miss Mo Mont Neb Nev Okla Ore Pa Tenn Tex Vt Va Wash
  Wis Wyo NSW VIC QLD TAS NT ACT`);

/** Compass words that join a known place into a larger one ("North America"). */
export const COMPASS = set(`north south east west northern southern eastern western central upper lower greater`);

/** Words after a name that make it a person ("Jane Doe said"). */
export const SPEECH_VERBS = set(`said says told added explained noted wrote asked answered replied commented stated`);

/** Prepositions after which an unknown capitalised word is usually an organisation ("signed with Globex"). */
export const ORG_CONTEXT_BEFORE = set(`between from with through via by at joined join acquire acquired acquiring
  por con avec chez mit bei durch tramite presso pela pelo através`);

/** Closing lines of letters and e-mails: the next name-only line is the signer. */
export const CLOSINGS =
  /^(?:.*\/\s*)?(?:sincerely|yours sincerely|yours faithfully|yours truly|kind regards|best regards|warm regards|regards|best wishes|best|cheers|thanks|thank you|many thanks|respectfully|mit freundlichen grüßen|mit freundlichen grüssen|freundliche grüsse|freundliche grüße|atentamente|saludos cordiales|cordialement|met vriendelijke groet|trân trọng|distinti saluti|z poważaniem|med vänliga hälsningar|med venlig hilsen|atenciosamente|met vriendelijke groeten|vriendelijke groet(?:en)?|com os melhores cumprimentos|melhores cumprimentos|cumprimentos|cordialmente|un saludo|saludos|bien à vous|salutations distinguées|s pozdravem|s poštovanjem|srdačan pozdrav|ystävällisin terveisin|terveisin|lugupidamisega|parimate soovidega|pagarbiai|cu stimă|cu respect|hormat kami|hormat saya|salam|med vennlig hilsen|vänliga hälsningar|mvh|venlig hilsen|beste grüße|viele grüße|cordiali saluti)[,.!]?$/iu;

/**
 * Given names common in West, East and Southern Africa, South Asia, the Arab world and South-East
 * Asia that compromise's lexicon (mostly English and European names) does not know: a word of these
 * first in a span reads as a person's name ("Kwabena Owusu", "Gurpreet Singh Dhillon").
 */
export const MORE_GIVEN_NAMES =
  set(`kwame kwabena kwaku kwasi kofi kojo yaw kwadwo ekow akosua adwoa abena akua yaa afua
  ama efua esi adjoa afia nii naa oluwaseun oluwadamilare olumide oluwatobi oluwaseyi oluwafemi ayodele babatunde
  folake funmilayo temitope titilayo yetunde adewale adeola bolaji damilola kehinde taiwo segun tunde femi bukola kunle
  tolu tobi chidi chinedu chukwuemeka emeka ngozi chioma obinna ifeanyi uche nnamdi adaeze amaka ikenna chiamaka
  nkechi ebere kelechi chinonso aminu musa abubakar halima zainab hadiza usman fatuma salim wanjiru wanjiku njeri
  achieng akinyi baraka juma zawadi neema amani rehema imani wambui nyambura atieno odhiambo cherono jepchirchir
  lindiwe thabo sipho bongani nomvula thandiwe zanele lerato karabo mpho tshepo palesa busisiwe nokuthula sibusiso
  themba lungile ayanda gurpreet harpreet manpreet jaspreet simran amandeep navdeep harjit kuldeep sukhwinder baljit
  rajinder ananya priya lakshmi venkatesh sandeep rohit farhan meera karthik arjun aditya deepika kavita sunita anil
  sunil ramesh suresh mahesh ganesh rajesh prakash vikram anjali pooja neha shreya aarav vivek nikhil rahul amit
  sanjay vijay ajay harish srinivas lakshman revathi kavya divya swati rekha farhana rafiqul nusrat tahmina shakil
  imran asif bilal ayesha sana mohammed mohammad muhammad ahmed ahmad mostafa mustafa khalid hana fatima omar youssef
  yousef hassan hussein layla noor nour salma rania tarek tariq karim samir nadia amira ibrahim abdullah faisal saeed
  rashid hamad mariam aisha huda reem siti nurul joão joana gonçalo`);

/**
 * Family names written first in Chinese, Korean and Vietnamese names ("Choi Min-jung", "Trần Minh
 * Tuấn"); with given names after them that no lexicon knows, the whole reads as a person's.
 */
export const FAMILY_FIRST_NAMES = set(`nguyễn trần lê phạm hoàng huỳnh phan vũ võ đặng bùi đỗ hồ ngô dương lý đinh
  trương kim lee park choi jung jeong kang cho yoon jang lim han oh seo shin kwon hwang ahn song yoo hong jeon moon
  baek wang zhang liu chen yang huang zhao zhou xu zhu guo luo zheng liang xie tang deng cao peng zeng xiao feng
  chan leung wong cheung chow lam tsang yip kwok fung tse mak siu poon yeung`);
