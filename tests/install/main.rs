//! The product as users install it: the wheel in a fresh virtual environment
//! (`wheel`), and `toolsearch connect` for each client it knows (`connect`).
//! Everything runs in temporary homes, from outside the checkout; nothing here
//! reaches the network (the model is served over loopback HTTP).

mod common;
mod connect;
mod first_hour;
mod wheel;
