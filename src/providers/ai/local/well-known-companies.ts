/**
 * Well-known companies that business documents name and that name-suggestion-index (a list of
 * brands seen on shops and signs, company-names.ts) does not hold: firms that sell to firms —
 * software and cloud, shipping and logistics, audit, law and consulting, inspection, banks and
 * insurers, engineering, energy, mining, e-commerce and telecoms — of every continent, by the
 * names documents write them. Maintained by hand, one name a line; "~" would mark a name made only
 * of words of the language, as company-names.ts marks them. A one-word name that is a word of the
 * language, a given or family name or a place ("Workday", "Grab", "Orange") is skipped when the
 * list is read: alone it names a company too rarely. The seventh pass (2026-11-29) added real-estate
 * agents, classification societies, P&I clubs, carriers, forwarders, airlines, banks of many
 * countries, fashion retail, engineering, energy, telecoms, food, pharma, car, electronics, insurance
 * and cement companies; a name that a document of the held-out split `sealed-2` writes was left out,
 * so that split still measures names the list does not hold.
 */
export const WELL_KNOWN_COMPANIES = `
Adobe
Airbus
Alibaba
Alibaba Group
Alphabet
Anglo American
AngloGold Ashanti
Aramco
Saudi Aramco
ArcelorMittal
Arthur Cox
A.P. Moller - Maersk
AP Moller
Atlassian
AXA
Baker McKenzie
Baker Tilly
Barclays
BASF
Bayer
BDO
BHP
BlackRock
Bloomberg
Boeing
Bosch
BP
BRAC
Bureau Veritas
ByteDance
Capgemini
Cargill
Caterpillar
Chevron
China Merchants
Cisco
Citi
Citibank
Clifford Chance
CMA CGM
Cognizant
Colliers
Crédit Agricole
Credit Suisse
Cushman & Wakefield
Dangote
Dangote Group
Databricks
DataStax
Dell
Dell Technologies
Deloitte
Dentons
Deutsche Bank
Deutsche Telekom
DHL
DLA Piper
DSV
Ecobank
Enel
Engie
Ericsson
Equinix
Ernst & Young
EY
Evergreen Marine
ExxonMobil
FedEx
Flipkart
Fluor
Freshfields
Geodis
Glencore
GoDaddy
Goldman Sachs
Grab
Grant Thornton
Hapag-Lloyd
HCL
HCLTech
Heineken
Herbert Smith Freehills
Hitachi
Honeywell
HSBC
Huawei
Hyundai
Iberdrola
IBM
ICICI
ICICI Bank
Infosys
Intel
Intertek
J.P. Morgan
JPMorgan
JPMorgan Chase
JLL
Julius Baer
Jumia
Kering
Knight Frank
Komatsu
KPMG
Latham & Watkins
LG
LG Energy Solution
Linklaters
Lloyd's
L'Oréal
LVMH
Maersk
Mazars
McKinsey
McKinsey & Company
Mercado Libre
Mitsubishi
Mitsui
MSC
MTN
MTN Group
Munich Re
Naspers
Nestlé
Netflix
Nokia
Novartis
Nvidia
NVIDIA
Ocean Network Express
Olam
Oracle
Orange
Palantir
Panasonic
PayPal
Pfizer
Petrobras
Philips
Prosus
PwC
PricewaterhouseCoopers
Randstad
Reliance Industries
Rio Tinto
Roche
Rolls-Royce
Safaricom
Samsung
Samsung Electronics
Sanofi
Schneider Electric
Sea Limited
ServiceNow
SGS
Shopee
Shopify
Siemens
Siemens Energy
Siemens Healthineers
SK Hynix
Sodexo
Sony
Standard Bank
Swiss Re
Tata
Tata Consultancy Services
TCS
Tata Motors
Tata Steel
Tencent
Tesla
Thales
Thomson Reuters
ThyssenKrupp
Tokopedia
TotalEnergies
Toyota
Toyota Tsusho
Trafigura
UBS
Unilever
Veolia
Vinci
Vodafone
Vodacom
Volkswagen
Wipro
WPP
Xiaomi
Yang Ming
Zurich Insurance
ZPMC
Zoom
Jones Lang LaSalle
CBRE
Savills
DNV
DNV GL
Lloyd's Register
ClassNK
American Bureau of Shipping
TÜV SÜD
TÜV Rheinland
DEKRA
The Standard Club
Standard Club
COSCO
COSCO Shipping
COSCO Shipping Lines
ZIM
HMM
Wan Hai Lines
Hamburg Süd
Nippon Express
NYK Line
Mitsui O.S.K. Lines
Kuehne + Nagel
Kuehne+Nagel
DB Schenker
CEVA Logistics
C.H. Robinson
Aramex
Yusen Logistics
Kerry Logistics
Bolloré Logistics
XPO Logistics
UPS
Delta Air Lines
American Airlines
United Airlines
Qatar Airways
Lufthansa
Air France-KLM
British Airways
Singapore Airlines
Cathay Pacific
Turkish Airlines
Kenya Airways
LATAM Airlines
Qantas
Garanti BBVA
BBVA
Santander
Banco Santander
BNP Paribas
Société Générale
Rabobank
ABN AMRO
Commerzbank
UniCredit
Nordea
SEB
DNB
Standard Chartered
Lloyds Bank
NatWest
HDFC Bank
State Bank of India
Axis Bank
Kotak Mahindra Bank
Mizuho
MUFG
SMBC
DBS
OCBC
UOB
CIMB
Emirates NBD
QNB
Al Rajhi Bank
Access Bank
Zenith Bank
GTBank
Equity Bank
KCB
Nedbank
Itaú
Bradesco
Banorte
Bancolombia
Bank Hapoalim
Inditex
H&M
Primark
IKEA
Decathlon
Carrefour
Tesco
Walmart
Costco
Uniqlo
Fast Retailing
LC Waikiki
Accenture
Bain & Company
Boston Consulting Group
BCG
Roland Berger
Oliver Wyman
Forvis Mazars
RSM
Equinor
Ørsted
Siemens Gamesa
Nexans
Prysmian
ABB
GE Vernova
Schlumberger
SLB
Halliburton
Baker Hughes
Saipem
Technip Energies
Wärtsilä
Air Liquide
Yokogawa
Mitsubishi Heavy Industries
Hyundai Heavy Industries
Larsen & Toubro
Bechtel
AECOM
WSP
Dar Al-Handasah
Arab Contractors
Bharti Airtel
Airtel
Etisalat
Telstra
Singtel
PLDT
Ooredoo
Louis Dreyfus
ADM
ECOM Agroindustrial
Danone
Mondelez
PepsiCo
Coca-Cola
AB InBev
Diageo
AstraZeneca
GSK
Novo Nordisk
Johnson & Johnson
Cipla
Sun Pharma
BMW
Mercedes-Benz
Stellantis
General Motors
BYD
Geely
Mahindra
TDK
Foxconn
TSMC
MediaTek
Fujitsu
Toshiba
ASUS
Allianz
Generali
AIG
AIA
Hannover Re
Aviva
Old Mutual
Sanlam
Holcim
Heidelberg Materials
Cemex
Saint-Gobain
UltraTech Cement
Marriott
IHG
Hyatt
Salesforce
Palo Alto Networks
CrowdStrike
Fortinet
Freeport-McMoRan
`;
