//! The setup of a box with the demo shop, for the tests that run the writers over a store.

use actors::accounts::NewAccount;
use actors::setup::Setup;
use storage::records::Role;

/// Setup of an account named `name` (`<name>@example.com`, never logged in) with the demo data,
/// in EUR at 0.32 per kWh.
pub fn demo_setup(name: &str) -> Setup {
    Setup {
        account: NewAccount {
            display_name: name.into(),
            email: format!("{}@example.com", name.to_lowercase())
                .parse()
                .unwrap(),
            password_hash: "not a hash: these tests never log in".into(),
            locale: "en-US".parse().unwrap(),
            role: Role::Owner,
        },
        currency: "EUR".parse().unwrap(),
        electricity_price: "0.32".parse().unwrap(),
        create_demo_data: true,
    }
}
