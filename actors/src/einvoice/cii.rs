//! A [`Document`] as UN/CEFACT Cross Industry Invoice D16B XML, as XRechnung 3.0 or as the
//! Factur-X / ZUGFeRD EN 16931 profile names it in BT-24 ([`Guideline`]), elements in the
//! order the CII schema's sequences fix. Amounts are written with two decimals, quantities and
//! prices as exact as they are, dates in format 102 (`YYYYMMDD`).

use super::totals::{self, Totals};
use super::{Adjustment, Document, Kind, Line, Vat};
use crate::money::Overflow;
use jiff::civil::Date;
use quick_xml::Writer;
use quick_xml::events::BytesText;
use rust_decimal::Decimal;
use std::io;
use storage::records::InvoiceParty;

/// The specification an invoice claims to follow (BT-24); the XML is the same otherwise.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Guideline {
    /// XRechnung 3.0 (KoSIT): the stand-alone XML a German public buyer takes.
    XRechnung,
    /// EN 16931 itself: the Factur-X 1.07 / ZUGFeRD 2.3 profile "EN 16931" (`COMFORT`), the
    /// XML inside the PDF.
    En16931,
}

impl Guideline {
    /// Its BT-24 identifier.
    pub fn id(self) -> &'static str {
        match self {
            Guideline::XRechnung => {
                "urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_3.0"
            }
            Guideline::En16931 => "urn:cen.eu:en16931:2017",
        }
    }
}

/// BT-23: the business process (Peppol billing, as XRechnung's examples name it).
const PROCESS: &str = "urn:fdc:peppol.eu:2017:poacc:billing:01:1.0";

type Out = Writer<Vec<u8>>;

/// The XML of `document` under `guideline`. Errors: [`Overflow`] when its totals leave the
/// money bound.
pub fn xml(document: &Document, guideline: Guideline) -> Result<String, Overflow> {
    let totals = totals::of(document)?;
    let mut out = Writer::new_with_indent(Vec::new(), b' ', 1);
    // Writing into memory cannot fail, and every text written is a Rust string (UTF-8).
    write(&mut out, document, &totals, guideline).map_err(|_| Overflow)?;
    let body = String::from_utf8_lossy(&out.into_inner()).into_owned();
    Ok(format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n{body}\n"
    ))
}

fn text(out: &mut Out, name: &str, value: &str) -> io::Result<()> {
    out.create_element(name)
        .write_text_content(BytesText::new(value))?;
    Ok(())
}

fn amount(value: Decimal) -> String {
    format!("{:.2}", totals::cents(value))
}

fn exact(value: Decimal) -> String {
    value.normalize().to_string()
}

fn day(out: &mut Out, name: &str, date: Date) -> io::Result<()> {
    out.create_element(name).write_inner_content(|out| {
        out.create_element("udt:DateTimeString")
            .with_attribute(("format", "102"))
            .write_text_content(BytesText::new(&date.strftime("%Y%m%d").to_string()))?;
        Ok(())
    })?;
    Ok(())
}

fn write(out: &mut Out, d: &Document, totals: &Totals, guideline: Guideline) -> io::Result<()> {
    out.create_element("rsm:CrossIndustryInvoice")
        .with_attributes([
            ("xmlns:rsm", "urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100"),
            ("xmlns:ram", "urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100"),
            ("xmlns:qdt", "urn:un:unece:uncefact:data:standard:QualifiedDataType:100"),
            ("xmlns:udt", "urn:un:unece:uncefact:data:standard:UnqualifiedDataType:100"),
        ])
        .write_inner_content(|out| {
            out.create_element("rsm:ExchangedDocumentContext")
                .write_inner_content(|out| {
                    for (name, id) in [
                        ("ram:BusinessProcessSpecifiedDocumentContextParameter", PROCESS),
                        ("ram:GuidelineSpecifiedDocumentContextParameter", guideline.id()),
                    ] {
                        out.create_element(name)
                            .write_inner_content(|out| text(out, "ram:ID", id))?;
                    }
                    Ok(())
                })?;
            out.create_element("rsm:ExchangedDocument")
                .write_inner_content(|out| {
                    text(out, "ram:ID", &d.number)?;
                    let code = match d.kind {
                        Kind::Invoice => "380",
                        Kind::CreditNote => "381",
                    };
                    text(out, "ram:TypeCode", code)?;
                    day(out, "ram:IssueDateTime", d.issued_on)?;
                    if let Some(note) = &d.note {
                        out.create_element("ram:IncludedNote")
                            .write_inner_content(|out| text(out, "ram:Content", note))?;
                    }
                    Ok(())
                })?;
            out.create_element("rsm:SupplyChainTradeTransaction")
                .write_inner_content(|out| transaction(out, d, totals))?;
            Ok(())
        })?;
    Ok(())
}

fn transaction(out: &mut Out, d: &Document, totals: &Totals) -> io::Result<()> {
    for (i, (line, net)) in d.lines.iter().zip(&totals.lines).enumerate() {
        line_item(out, i + 1, line, *net)?;
    }
    out.create_element("ram:ApplicableHeaderTradeAgreement")
        .write_inner_content(|out| {
            text(out, "ram:BuyerReference", &d.buyer_reference)?;
            party(out, "ram:SellerTradeParty", &d.seller, true)?;
            party(out, "ram:BuyerTradeParty", &d.buyer, false)
        })?;
    out.create_element("ram:ApplicableHeaderTradeDelivery")
        .write_empty()?;
    out.create_element("ram:ApplicableHeaderTradeSettlement")
        .write_inner_content(|out| settlement(out, d, totals))?;
    Ok(())
}

fn category(out: &mut Out, vat: Vat) -> io::Result<()> {
    text(out, "ram:TypeCode", "VAT")?;
    text(out, "ram:CategoryCode", vat.code())?;
    text(out, "ram:RateApplicablePercent", &exact(vat.rate()))
}

fn line_item(out: &mut Out, number: usize, line: &Line, net: Decimal) -> io::Result<()> {
    out.create_element("ram:IncludedSupplyChainTradeLineItem")
        .write_inner_content(|out| {
            out.create_element("ram:AssociatedDocumentLineDocument")
                .write_inner_content(|out| text(out, "ram:LineID", &number.to_string()))?;
            out.create_element("ram:SpecifiedTradeProduct")
                .write_inner_content(|out| text(out, "ram:Name", &line.name))?;
            out.create_element("ram:SpecifiedLineTradeAgreement")
                .write_inner_content(|out| {
                    out.create_element("ram:NetPriceProductTradePrice")
                        .write_inner_content(|out| {
                            text(out, "ram:ChargeAmount", &exact(line.unit_price))
                        })?;
                    Ok(())
                })?;
            out.create_element("ram:SpecifiedLineTradeDelivery")
                .write_inner_content(|out| {
                    out.create_element("ram:BilledQuantity")
                        .with_attribute(("unitCode", line.unit))
                        .write_text_content(BytesText::new(&exact(line.quantity)))?;
                    Ok(())
                })?;
            out.create_element("ram:SpecifiedLineTradeSettlement")
                .write_inner_content(|out| {
                    out.create_element("ram:ApplicableTradeTax")
                        .write_inner_content(|out| category(out, line.vat))?;
                    out.create_element("ram:SpecifiedTradeSettlementLineMonetarySummation")
                        .write_inner_content(|out| {
                            text(out, "ram:LineTotalAmount", &amount(net))
                        })?;
                    Ok(())
                })?;
            Ok(())
        })?;
    Ok(())
}

fn party(out: &mut Out, name: &str, p: &InvoiceParty, seller: bool) -> io::Result<()> {
    out.create_element(name).write_inner_content(|out| {
        // BR-CO-26 asks of a seller without a VAT id another identifier (BT-29): its tax number.
        if let (true, None, Some(tax_number)) = (seller, &p.vat_id, &p.tax_number) {
            text(out, "ram:ID", tax_number)?;
        }
        text(out, "ram:Name", &p.name)?;
        if seller {
            // BG-6, which XRechnung asks of the seller (BR-DE-2, -5, -6, -7).
            out.create_element("ram:DefinedTradeContact")
                .write_inner_content(|out| {
                    text(out, "ram:PersonName", &p.name)?;
                    if let Some(phone) = &p.phone {
                        out.create_element("ram:TelephoneUniversalCommunication")
                            .write_inner_content(|out| text(out, "ram:CompleteNumber", phone))?;
                    }
                    out.create_element("ram:EmailURIUniversalCommunication")
                        .write_inner_content(|out| text(out, "ram:URIID", &p.email))?;
                    Ok(())
                })?;
        }
        out.create_element("ram:PostalTradeAddress")
            .write_inner_content(|out| {
                text(out, "ram:PostcodeCode", &p.address.postal_code)?;
                text(out, "ram:LineOne", &p.address.street)?;
                text(out, "ram:CityName", &p.address.city)?;
                text(out, "ram:CountryID", &p.address.country)
            })?;
        out.create_element("ram:URIUniversalCommunication")
            .write_inner_content(|out| {
                out.create_element("ram:URIID")
                    .with_attribute(("schemeID", "EM"))
                    .write_text_content(BytesText::new(&p.email))?;
                Ok(())
            })?;
        for (scheme, id) in [("VA", &p.vat_id), ("FC", &p.tax_number)] {
            if let Some(id) = id {
                out.create_element("ram:SpecifiedTaxRegistration")
                    .write_inner_content(|out| {
                        out.create_element("ram:ID")
                            .with_attribute(("schemeID", scheme))
                            .write_text_content(BytesText::new(id))?;
                        Ok(())
                    })?;
            }
        }
        Ok(())
    })?;
    Ok(())
}

fn adjustment(out: &mut Out, a: &Adjustment) -> io::Result<()> {
    out.create_element("ram:SpecifiedTradeAllowanceCharge")
        .write_inner_content(|out| {
            out.create_element("ram:ChargeIndicator")
                .write_inner_content(|out| {
                    text(
                        out,
                        "udt:Indicator",
                        if a.charge { "true" } else { "false" },
                    )
                })?;
            text(out, "ram:ActualAmount", &amount(a.amount))?;
            text(out, "ram:Reason", &a.reason)?;
            out.create_element("ram:CategoryTradeTax")
                .write_inner_content(|out| category(out, a.vat))?;
            Ok(())
        })?;
    Ok(())
}

fn settlement(out: &mut Out, d: &Document, t: &Totals) -> io::Result<()> {
    text(out, "ram:InvoiceCurrencyCode", &d.currency)?;
    out.create_element("ram:SpecifiedTradeSettlementPaymentMeans")
        .write_inner_content(|out| {
            text(out, "ram:TypeCode", "58")?;
            out.create_element("ram:PayeePartyCreditorFinancialAccount")
                .write_inner_content(|out| text(out, "ram:IBANID", &d.account.0))?;
            if let Some(bic) = &d.account.1 {
                out.create_element("ram:PayeeSpecifiedCreditorFinancialInstitution")
                    .write_inner_content(|out| text(out, "ram:BICID", bic))?;
            }
            Ok(())
        })?;
    for b in &t.breakdown {
        out.create_element("ram:ApplicableTradeTax")
            .write_inner_content(|out| {
                text(out, "ram:CalculatedAmount", &amount(b.amount))?;
                text(out, "ram:TypeCode", "VAT")?;
                if let Some((reason, _)) = b.vat.exemption() {
                    text(out, "ram:ExemptionReason", reason)?;
                }
                text(out, "ram:BasisAmount", &amount(b.basis))?;
                text(out, "ram:CategoryCode", b.vat.code())?;
                if let Some((_, Some(code))) = b.vat.exemption() {
                    text(out, "ram:ExemptionReasonCode", code)?;
                }
                text(out, "ram:RateApplicablePercent", &exact(b.vat.rate()))
            })?;
    }
    for a in &d.adjustments {
        adjustment(out, a)?;
    }
    out.create_element("ram:SpecifiedTradePaymentTerms")
        .write_inner_content(|out| {
            if let Some(terms) = &d.payment_terms {
                text(out, "ram:Description", terms)?;
            }
            if let Some(due) = d.due_on {
                day(out, "ram:DueDateDateTime", due)?;
            }
            Ok(())
        })?;
    out.create_element("ram:SpecifiedTradeSettlementHeaderMonetarySummation")
        .write_inner_content(|out| {
            text(out, "ram:LineTotalAmount", &amount(t.line_total))?;
            if !d.adjustments.is_empty() {
                text(out, "ram:ChargeTotalAmount", &amount(t.charges))?;
                text(out, "ram:AllowanceTotalAmount", &amount(t.allowances))?;
            }
            text(out, "ram:TaxBasisTotalAmount", &amount(t.tax_basis))?;
            out.create_element("ram:TaxTotalAmount")
                .with_attribute(("currencyID", d.currency.as_str()))
                .write_text_content(BytesText::new(&amount(t.tax)))?;
            text(out, "ram:GrandTotalAmount", &amount(t.grand_total))?;
            text(out, "ram:TotalPrepaidAmount", &amount(d.prepaid))?;
            text(out, "ram:DuePayableAmount", &amount(t.due))
        })?;
    if let Some((number, issued)) = &d.preceding {
        out.create_element("ram:InvoiceReferencedDocument")
            .write_inner_content(|out| {
                text(out, "ram:IssuerAssignedID", number)?;
                out.create_element("ram:FormattedIssueDateTime")
                    .write_inner_content(|out| {
                        out.create_element("qdt:DateTimeString")
                            .with_attribute(("format", "102"))
                            .write_text_content(BytesText::new(
                                &issued.strftime("%Y%m%d").to_string(),
                            ))?;
                        Ok(())
                    })?;
                Ok(())
            })?;
    }
    Ok(())
}
