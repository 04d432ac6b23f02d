/**
 * Well-known companies that business documents name and that name-suggestion-index (a list of
 * brands seen on shops and signs, company-names.ts) does not hold: firms that sell to firms —
 * software and cloud, shipping and logistics, audit, law and consulting, inspection, banks and
 * insurers, engineering, energy, mining, e-commerce and telecoms — of every continent, by the
 * names documents write them. Maintained by hand, one name a line; "~" would mark a name made only
 * of words of the language, as company-names.ts marks them. A one-word name that is a word of the
 * language, a given or family name or a place ("Workday", "Grab", "Orange") is skipped when the
 * list is read: alone it names a company too rarely.
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
`;
