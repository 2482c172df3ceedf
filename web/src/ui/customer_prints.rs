//! A customer's priced prints in one status, as the quote and invoice forms offer them to tick.

use super::page::Ctx;
use crate::api::prints::filters;
use crate::api::series::history;
use crate::error::ApiError;
use actors::prints::Scope;
use storage::Id;

/// A print a form offers: its id, name, quantity and sales value in words.
pub struct Offered {
    /// Id.
    pub id: String,
    /// Name.
    pub name: String,
    /// Units.
    pub quantity: u32,
    /// Sales value, in the reader's words.
    pub price: String,
}

/// `customer`'s prints in `status` (`DRAFT`, `DONE`) that have a sales value, less those in
/// `except` (ids), at most 100; none without a customer.
pub async fn priced(
    ctx: &Ctx,
    customer: Option<Id>,
    status: &str,
    except: &[String],
) -> Result<Vec<Offered>, ApiError> {
    let Some(customer) = customer else {
        return Ok(Vec::new());
    };
    let query = filters::parse_query(&format!("status={status}&pageSize=100"))?;
    let found = history(&ctx.state, query, Scope::Customer(customer)).await?;
    let t = &ctx.chrome.t;
    Ok(found
        .items
        .into_iter()
        .filter(|p| !except.contains(&p.id))
        .filter_map(|p| {
            let price = p.sales_value.as_deref().map(|v| t.money_str(v))?;
            Some(Offered {
                id: p.id,
                name: p.name,
                quantity: p.quantity,
                price,
            })
        })
        .collect())
}
