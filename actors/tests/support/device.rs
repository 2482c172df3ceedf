//! The bridge tests' Modbus TCP device (tokio-modbus, in process) and their MQTT helpers,
//! shared by the test binaries that include this file.
#![allow(dead_code)]

use rumqttc::{Event, EventLoop, Packet};
use std::collections::BTreeMap;
use std::future;
use std::net::{SocketAddr, TcpListener};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio_modbus::prelude::{ExceptionCode, Request, Response};
use tokio_modbus::server::tcp::{Server, accept_tcp_connection};

/// A device with fixed holding registers and coils that records every request it sees.
#[derive(Default)]
pub struct Device {
    pub registers: Mutex<BTreeMap<u16, u16>>,
    pub coils: Mutex<BTreeMap<u16, bool>>,
    pub seen: Mutex<Vec<(&'static str, u16, u16)>>,
}

impl tokio_modbus::server::Service for Device {
    type Request = Request<'static>;
    type Response = Response;
    type Exception = ExceptionCode;
    type Future = future::Ready<Result<Response, ExceptionCode>>;

    fn call(&self, request: Request<'static>) -> Self::Future {
        let words = |address: u16, count: u16| -> Option<Vec<u16>> {
            let registers = self.registers.lock().unwrap();
            (address..address + count)
                .map(|a| registers.get(&a).copied())
                .collect()
        };
        let answer = match request {
            Request::ReadHoldingRegisters(address, count) => {
                self.seen.lock().unwrap().push(("holding", address, count));
                words(address, count)
                    .map(Response::ReadHoldingRegisters)
                    .ok_or(ExceptionCode::IllegalDataAddress)
            }
            Request::ReadInputRegisters(address, count) => words(address, count)
                .map(Response::ReadInputRegisters)
                .ok_or(ExceptionCode::IllegalDataAddress),
            Request::ReadCoils(address, count) => {
                self.seen.lock().unwrap().push(("coils", address, count));
                let coils = self.coils.lock().unwrap();
                let bits: Option<Vec<bool>> = (address..address + count)
                    .map(|a| coils.get(&a).copied())
                    .collect();
                bits.map(Response::ReadCoils)
                    .ok_or(ExceptionCode::IllegalDataAddress)
            }
            Request::WriteSingleCoil(address, bit) => {
                self.seen.lock().unwrap().push(("write coil", address, 1));
                self.coils.lock().unwrap().insert(address, bit);
                Ok(Response::WriteSingleCoil(address, bit))
            }
            Request::WriteMultipleRegisters(address, words) => {
                self.seen
                    .lock()
                    .unwrap()
                    .push(("write registers", address, words.len() as u16));
                let mut registers = self.registers.lock().unwrap();
                for (offset, word) in words.iter().enumerate() {
                    registers.insert(address + offset as u16, *word);
                }
                Ok(Response::WriteMultipleRegisters(
                    address,
                    words.len() as u16,
                ))
            }
            Request::WriteSingleRegister(address, word) => {
                self.seen
                    .lock()
                    .unwrap()
                    .push(("write register", address, 1));
                self.registers.lock().unwrap().insert(address, word);
                Ok(Response::WriteSingleRegister(address, word))
            }
            _ => Err(ExceptionCode::IllegalFunction),
        };
        future::ready(answer)
    }
}

/// Serves `device` on a free local port; returns the address and the server task.
pub async fn serve(device: Arc<Device>) -> (SocketAddr, tokio::task::JoinHandle<()>) {
    let address = free_address();
    (address, serve_at(device, address).await)
}

/// Serves `device` on `address` (again, after it went away).
pub async fn serve_at(device: Arc<Device>, address: SocketAddr) -> tokio::task::JoinHandle<()> {
    let listener = tokio::net::TcpListener::bind(address).await.unwrap();
    tokio::spawn(async move {
        let new_service = move |_| Ok(Some(device.clone()));
        let on_connected = move |stream, address| {
            let new_service = new_service.clone();
            async move { accept_tcp_connection(stream, address, new_service) }
        };
        let _ = Server::new(listener).serve(&on_connected, |_| {}).await;
    })
}

pub fn free_address() -> SocketAddr {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
}

pub async fn next_publish(events: &mut EventLoop) -> (String, String) {
    tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            if let Event::Incoming(Packet::Publish(p)) = events.poll().await.unwrap() {
                return (
                    p.topic.clone(),
                    String::from_utf8_lossy(&p.payload).to_string(),
                );
            }
        }
    })
    .await
    .expect("no publish within 10 s")
}
