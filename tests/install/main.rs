//! The product as users install it: the wheel in a fresh virtual environment
//! (`wheel`), the README's install section verbatim (`readme`),
//! `toolsearch connect` for each client it knows (`connect`), and the first
//! hour with real clients (`first_hour`).
//! Everything runs in temporary homes, from outside the checkout; nothing here
//! reaches the network (the model is served over loopback HTTP).

mod common;
mod connect;
mod first_hour;
mod readme;
mod wheel;
