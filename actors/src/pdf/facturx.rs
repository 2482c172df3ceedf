//! The Factur-X 1.07 / ZUGFeRD 2.3 declaration in a PDF/A-3's XMP metadata: the `fx:`
//! properties (`DocumentType`, `DocumentFileName`, `Version`, `ConformanceLevel`) and their
//! PDF/A extension schema (ISO 19005-3, 6.6.2.3; Factur-X 1.07 specification, section 6.2.2),
//! written into the metadata stream krilla made.

use super::sheet::{Attachment, PdfError};

/// The embedded invoice's file name, as Factur-X and ZUGFeRD 2.x fix it.
pub const FILE_NAME: &str = "factur-x.xml";
const NAMESPACE: &str = "urn:factur-x:pdfa:CrossIndustryDocument:invoice:1p0#";

/// The PDF/A extension schema entry that describes the `fx:` properties.
fn schema() -> String {
    let property = |name: &str, description: &str| {
        format!(
            "<rdf:li rdf:parseType=\"Resource\"><pdfaProperty:name>{name}</pdfaProperty:name>\
             <pdfaProperty:valueType>Text</pdfaProperty:valueType>\
             <pdfaProperty:category>external</pdfaProperty:category>\
             <pdfaProperty:description>{description}</pdfaProperty:description></rdf:li>"
        )
    };
    format!(
        "<rdf:li rdf:parseType=\"Resource\"><pdfaSchema:schema>Factur-X PDFA Extension Schema\
         </pdfaSchema:schema><pdfaSchema:namespaceURI>{NAMESPACE}</pdfaSchema:namespaceURI>\
         <pdfaSchema:prefix>fx</pdfaSchema:prefix><pdfaSchema:property><rdf:Seq>{}{}{}{}\
         </rdf:Seq></pdfaSchema:property></rdf:li>",
        property("DocumentFileName", "The name of the embedded XML document"),
        property(
            "DocumentType",
            "The type of the hybrid document in capital letters, e.g. INVOICE or ORDER"
        ),
        property(
            "Version",
            "The actual version of the standard applying to the embedded XML document"
        ),
        property(
            "ConformanceLevel",
            "The conformance level of the embedded XML document"
        ),
    )
}

/// `xmp` with the `fx:` properties of `attachment` and their schema; `None` when it is not
/// the packet krilla writes (one `rdf:RDF`).
fn extended(xmp: &str, attachment: &Attachment) -> Option<String> {
    let properties = format!(
        "<rdf:Description rdf:about=\"\" xmlns:fx=\"{NAMESPACE}\">\
         <fx:DocumentType>INVOICE</fx:DocumentType>\
         <fx:DocumentFileName>{FILE_NAME}</fx:DocumentFileName>\
         <fx:Version>1.0</fx:Version>\
         <fx:ConformanceLevel>{}</fx:ConformanceLevel></rdf:Description>",
        attachment.conformance
    );
    const BAG_END: &str = "</rdf:Bag></pdfaExtension:schemas>";
    let xmp = match xmp.contains(BAG_END) {
        true => xmp.replacen(BAG_END, &format!("{}{BAG_END}", schema()), 1),
        false => xmp.replacen(
            "</rdf:RDF>",
            &format!(
                "<rdf:Description rdf:about=\"\" \
                 xmlns:pdfaExtension=\"http://www.aiim.org/pdfa/ns/extension/\" \
                 xmlns:pdfaSchema=\"http://www.aiim.org/pdfa/ns/schema#\" \
                 xmlns:pdfaProperty=\"http://www.aiim.org/pdfa/ns/property#\">\
                 <pdfaExtension:schemas><rdf:Bag>{}</rdf:Bag></pdfaExtension:schemas>\
                 </rdf:Description></rdf:RDF>",
                schema()
            ),
            1,
        ),
    };
    xmp.contains("</rdf:RDF>")
        .then(|| xmp.replacen("</rdf:RDF>", &format!("{properties}</rdf:RDF>"), 1))
}

/// `pdf` (krilla's PDF/A-3 with `attachment` embedded) with the Factur-X declaration in its
/// XMP metadata stream. Errors: [`PdfError`] when lopdf cannot read or write it back.
pub fn declare(pdf: &[u8], attachment: &Attachment) -> Result<Vec<u8>, PdfError> {
    let fault = |what: &'static str| move |e: lopdf::Error| PdfError(format!("{what}: {e}"));
    let mut document = lopdf::Document::load_mem(pdf).map_err(fault("reading"))?;
    let root = document
        .trailer
        .get(b"Root")
        .and_then(lopdf::Object::as_reference)
        .map_err(fault("the catalog"))?;
    let metadata = document
        .get_dictionary(root)
        .and_then(|catalog| catalog.get(b"Metadata"))
        .and_then(lopdf::Object::as_reference)
        .map_err(fault("the metadata"))?;
    let stream = document
        .get_object_mut(metadata)
        .and_then(lopdf::Object::as_stream_mut)
        .map_err(fault("the metadata stream"))?;
    let xmp = String::from_utf8_lossy(&stream.content);
    let xmp = extended(&xmp, attachment)
        .ok_or_else(|| PdfError("the XMP packet has no rdf:RDF".into()))?;
    stream.set_content(xmp.into_bytes());
    let mut out = Vec::with_capacity(pdf.len() + 2048);
    document
        .save_to(&mut out)
        .map_err(|e| PdfError(e.to_string()))?;
    Ok(out)
}
